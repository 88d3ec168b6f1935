import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProviders } from './app/providers';
import { AppRouter } from './app/router';
import { createLocalBackend } from './backend/local/local-backend';
import './index.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProviders backend={createLocalBackend()}>
      <AppRouter />
    </AppProviders>
  </StrictMode>,
);
