import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { PageSpinner } from '@/components/ui/spinner';
import { PublicLayout } from './public-layout';
import { RequireAuth } from './require-auth';
import { ScrollToTop } from './scroll-to-top';

type PageModule = () => Promise<{ default: ComponentType }>;

/** The sign-in and sign-up pages: each build brings its own (built-in forms, or the identity provider's widgets). */
export interface AuthPages {
  signIn: PageModule;
  signUp: PageModule;
  /** Built-in accounts only: 'Forgot password?', 'Set a new password' and where the confirmation link lands. */
  forgotPassword?: PageModule;
  resetPassword?: PageModule;
  verifyEmail?: PageModule;
}

// Route-level code splitting: public pages never download the /app code.
const page = (load: PageModule) => {
  const Page = lazy(load);
  return (
    <Suspense fallback={<PageSpinner />}>
      <Page />
    </Suspense>
  );
};
const loadAppLayout = () => import('./shell/app-layout');
const AppLayout = lazy(() => loadAppLayout().then((m) => ({ default: m.AppLayout })));

/** The app's pages by their first path segment under /app (routes below), so their code can load early. */
const APP_PAGES: Record<string, PageModule> = {
  'create-image': () => import('@/pages/app/create-image-page'),
  'ai-videos': () => import('@/pages/app/ai-videos-page'),
  'character-training': () => import('@/pages/app/character-training-page'),
  'photo-shoots': () => import('@/pages/app/photo-shoots-page'),
  'my-generations': () => import('@/pages/app/my-generations-page'),
  explore: () => import('@/pages/app/explore-page'),
  favorites: () => import('@/pages/app/favorites-page'),
  teams: () => import('@/pages/app/teams-page'),
  subscription: () => import('@/pages/app/subscription-page'),
  credits: () => import('@/pages/app/credits-page'),
  profile: () => import('@/pages/app/profile-page'),
};

/**
 * Starts loading the app's layout and the page asked for while the session is still being checked, instead of
 * after it (a new person's first screen waited for the session, then the layout, then the page, one by one).
 * Dynamic imports are cached, so the routes' own lazy loads take the same modules.
 */
function PreloadAppCode() {
  const { pathname } = useLocation();
  useEffect(() => {
    void loadAppLayout().catch(() => undefined);
    void APP_PAGES[pathname.split('/')[2] || 'create-image']?.().catch(() => undefined);
  }, [pathname]);
  return null;
}

/** Old top-level paths that now live under /app (product §2 redirects), keeping query and hash. */
const APP_REDIRECTS = ['create-image', 'ai-videos', 'my-generations', 'explore', 'favorites', 'character-training'];

function RedirectTo({ to }: { to: string }) {
  const { search, hash } = useLocation();
  return <Navigate to={`${to}${search}${hash}`} replace />;
}

export function AppRoutes({ authPages }: { authPages: AuthPages }) {
  return (
    <>
      <ScrollToTop />
      <Routes>
        <Route element={<PublicLayout />}>
          <Route index element={page(() => import('@/pages/public/landing-page'))} />
          <Route path="how-it-works" element={page(() => import('@/pages/public/how-it-works-page'))} />
          <Route path="pricing" element={page(() => import('@/pages/public/pricing-page'))} />
          <Route path="faq" element={page(() => import('@/pages/public/faq-page'))} />
          <Route path="terms-of-service" element={page(() => import('@/pages/public/terms-of-service-page'))} />
          <Route path="privacy-policy" element={page(() => import('@/pages/public/privacy-policy-page'))} />
          <Route path="join/:token" element={page(() => import('@/pages/public/join-team-page'))} />
          <Route path="*" element={page(() => import('@/pages/not-found-page'))} />
        </Route>

        <Route path="sign-in/*" element={page(authPages.signIn)} />
        <Route path="sign-up/*" element={page(authPages.signUp)} />
        {authPages.forgotPassword && <Route path="forgot-password" element={page(authPages.forgotPassword)} />}
        {authPages.resetPassword && <Route path="reset-password" element={page(authPages.resetPassword)} />}
        {authPages.verifyEmail && <Route path="verify-email" element={page(authPages.verifyEmail)} />}

        {APP_REDIRECTS.map((p) => (
          <Route key={p} path={p} element={<RedirectTo to={`/app/${p}`} />} />
        ))}
        <Route path="terms" element={<RedirectTo to="/terms-of-service" />} />
        <Route path="privacy" element={<RedirectTo to="/privacy-policy" />} />

        <Route
          path="app"
          element={
            <>
              <PreloadAppCode />
              <RequireAuth>
                <Suspense fallback={<PageSpinner />}>
                  <AppLayout />
                </Suspense>
              </RequireAuth>
            </>
          }
        >
          <Route index element={<Navigate to="/app/create-image" replace />} />
          <Route path="create-image" element={page(APP_PAGES['create-image'])} />
          <Route path="ai-videos" element={page(APP_PAGES['ai-videos'])} />
          <Route path="character-training" element={page(APP_PAGES['character-training'])} />
          <Route path="photo-shoots" element={page(APP_PAGES['photo-shoots'])} />
          <Route path="photo-shoots/:id" element={page(() => import('@/pages/app/photo-shoot-page'))} />
          <Route path="my-generations" element={page(APP_PAGES['my-generations'])} />
          <Route path="explore" element={page(APP_PAGES.explore)} />
          <Route path="favorites" element={page(APP_PAGES.favorites)} />
          <Route path="teams" element={page(APP_PAGES.teams)} />
          <Route path="teams/join/:token" element={page(() => import('@/pages/app/accept-invite-page'))} />
          <Route path="teams/:id" element={page(() => import('@/pages/app/team-page'))} />
          <Route path="subscription" element={page(APP_PAGES.subscription)} />
          <Route path="credits" element={page(APP_PAGES.credits)} />
          <Route path="profile" element={page(APP_PAGES.profile)} />
          <Route path="*" element={page(() => import('@/pages/not-found-page'))} />
        </Route>
      </Routes>
    </>
  );
}
