/** Set by vite.config.ts: true when the hosted variables were given at build time. */
declare const __HOSTED_BUILD__: boolean;

interface ImportMetaEnv {
  readonly VITE_CLERK_PUBLISHABLE_KEY?: string;
  readonly VITE_SUPABASE_URL?: string;
  readonly VITE_SUPABASE_ANON_KEY?: string;
  /** Our server's address (paid actions, uploads, downloads); empty: the page's own origin. */
  readonly VITE_API_URL?: string;
  /** The Cloudflare checkout and portal workers (workers/); empty: our server answers both. */
  readonly VITE_CHECKOUT_WORKER_URL?: string;
  readonly VITE_PORTAL_WORKER_URL?: string;
}
