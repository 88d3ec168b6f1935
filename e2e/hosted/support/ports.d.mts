export declare const FRONTEND_API_HOST: string;
export declare const HOSTED_E2E: {
  port: number;
  supabasePort: number;
  controlPort: number;
  checkoutWorkerPort: number;
  portalWorkerPort: number;
  frontendApi: string;
  publishableKey: string;
  distDir: string;
};
export declare const HOSTED_E2E_BUILD_ENV: Record<
  | 'VITE_CLERK_PUBLISHABLE_KEY'
  | 'VITE_SUPABASE_URL'
  | 'VITE_SUPABASE_ANON_KEY'
  | 'VITE_API_URL'
  | 'VITE_CHECKOUT_WORKER_URL'
  | 'VITE_PORTAL_WORKER_URL',
  string
>;
