import { INVALID_PUBLISHABLE_KEY, isPublishableKey } from '@common/identity-key';

/** What the hosted SPA is built with (VITE_… variables, public by nature: they end up in the bundle). */
export interface HostedConfig {
  /** Clerk's publishable key (pk_test_… / pk_live_…). */
  publishableKey: string;
  /** The Supabase project's URL and its anon (publishable) key. */
  supabaseUrl: string;
  supabaseAnonKey: string;
  /** Our server, for paid actions, uploads and downloads; '' is the page's own origin. */
  apiUrl: string;
  /** The Cloudflare checkout and portal workers' addresses; unset or '' asks our server instead. */
  checkoutWorkerUrl?: string;
  portalWorkerUrl?: string;
}

/** Reads and checks the build's hosted configuration; a bad publishable key stops the app at start (product §5, §8). */
export function readHostedConfig(env: ImportMetaEnv = import.meta.env): HostedConfig {
  const publishableKey = env.VITE_CLERK_PUBLISHABLE_KEY?.trim() ?? '';
  if (!isPublishableKey(publishableKey)) throw new Error(INVALID_PUBLISHABLE_KEY);
  return {
    publishableKey,
    supabaseUrl: env.VITE_SUPABASE_URL?.trim() ?? '',
    supabaseAnonKey: env.VITE_SUPABASE_ANON_KEY?.trim() ?? '',
    apiUrl: env.VITE_API_URL?.trim() ?? '',
    checkoutWorkerUrl: env.VITE_CHECKOUT_WORKER_URL?.trim() ?? '',
    portalWorkerUrl: env.VITE_PORTAL_WORKER_URL?.trim() ?? '',
  };
}
