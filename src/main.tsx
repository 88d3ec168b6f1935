import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { startMode as startHostedMode } from './app/hosted-mode';
import { startMode as startLocalMode } from './app/local-mode';
import type { StartedMode } from './app/mode';
import { AppRoutes } from './app/router';
import './index.css';

const root = createRoot(document.getElementById('root')!);

// __HOSTED_BUILD__ is a build-time constant (vite.config.ts): the mode not chosen is dead code and leaves
// the bundle, so each build holds only its own adapter. The hosted adapter's Clerk and Supabase parts are
// lazy chunks loaded when a page needs them; the local adapter is small and stays in the entry, where a
// chunk of its own cost the landing more than it saved (bench/landing.bench.ts).
start(__HOSTED_BUILD__ ? startHostedMode : startLocalMode);

function start(startMode: () => StartedMode) {
  let started: StartedMode;
  try {
    started = startMode();
  } catch (err) {
    // A bad build configuration stops the app at start, with its message on the page (product §5, §8).
    root.render(
      <p role="alert" className="p-6 text-danger">
        {err instanceof Error ? err.message : String(err)}
      </p>,
    );
    throw err;
  }
  const { Session, authPages } = started;
  root.render(
    <StrictMode>
      <BrowserRouter>
        <Session>
          <AppRoutes authPages={authPages} />
        </Session>
      </BrowserRouter>
    </StrictMode>,
  );
}
