import type { ReactNode } from 'react';
import { createLocalBackend } from '@/backend/local/local-backend';
import type { StartedMode } from './mode';
import { AppProviders } from './providers';

/** The local build: built-in accounts, and every list, change and paid action through this product's server. */
export function startMode(): StartedMode {
  const backend = createLocalBackend();
  return {
    Session: ({ children }: { children: ReactNode }) => <AppProviders backend={backend}>{children}</AppProviders>,
    authPages: {
      signIn: () => import('@/pages/auth/sign-in-page'),
      signUp: () => import('@/pages/auth/sign-up-page'),
      forgotPassword: () => import('@/pages/auth/forgot-password-page'),
      resetPassword: () => import('@/pages/auth/reset-password-page'),
      verifyEmail: () => import('@/pages/auth/verify-email-page'),
    },
  };
}
