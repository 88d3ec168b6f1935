import { z } from 'zod';
import { creemProductVariable } from '../../common/creem.ts';
import { originListSchema } from '../../common/origins.ts';
import { PLAN_IDS, type PlanId } from '../../common/plans.ts';

/**
 * The variables and secrets of the checkout and portal workers (each worker's wrangler.toml lists its own; the
 * secrets are set with `wrangler secret put`). Cloudflare hands them to every request as `env`.
 */
export type WorkerEnv = Record<string, unknown>;

const text = (what: string) =>
  z
    .string({ error: `required: ${what}` })
    .trim()
    .min(1, `required: ${what}`);
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^https?$/ }).optional())
  .optional();

const sharedSchema = z.object({
  ALLOWED_ORIGINS: originListSchema.refine((origins) => origins.length > 0, "required: the SPA's origins, like https://app.example.com"),
  CLERK_AUTHORIZED_PARTIES: originListSchema,
  CLERK_JWT_KEY: text("Clerk's PEM public key (dashboard: API keys → JWT public key)").regex(
    /-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----/,
    'must be the PEM public key from the Clerk dashboard (-----BEGIN PUBLIC KEY----- …)',
  ),
  SUPABASE_URL: z.url({ protocol: /^https?$/, error: 'required: the Supabase project URL, like https://<ref>.supabase.co' }),
  SUPABASE_SERVICE_ROLE_KEY: text("the Supabase project's secret (service_role) key"),
  CREEM_API_KEY: text("Creem's API key"),
  CREEM_SERVER_URL: optionalUrl,
  CREEM_TIMEOUT_SECONDS: z.coerce.number().positive().max(25).default(10),
});

const productsSchema = z.object(
  Object.fromEntries(PLAN_IDS.map((plan) => [creemProductVariable(plan), text(`the Creem product id of the ${plan} plan`)])) as Record<
    ReturnType<typeof creemProductVariable>,
    ReturnType<typeof text>
  >,
);

export interface WorkerConfig {
  /** The SPA's origins: CORS, and where a payer returns to. */
  origins: string[];
  /** Origins a session token may have been issued to (its azp): CLERK_AUTHORIZED_PARTIES, else ALLOWED_ORIGINS. */
  authorizedParties: string[];
  clerkJwtKey: string;
  supabaseUrl: string;
  supabaseServiceKey: string;
  creem: { apiKey: string; serverUrl?: string; timeoutMs: number };
  /** The checkout worker's Creem product of each plan. */
  products?: Record<PlanId, string>;
}

/** Thrown for a worker whose variables are missing or wrong; names each one (never its value). */
export class WorkerConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('; '));
  }
}

const problems = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

const cache = new WeakMap<object, WorkerConfig>();

/** The worker's configuration from its bindings (read once per isolate); `products` for the checkout worker. */
export function readWorkerConfig(env: WorkerEnv, opts: { products: boolean }): WorkerConfig {
  const known = cache.get(env);
  if (known) return known;
  const shared = sharedSchema.safeParse(env);
  const products = opts.products ? productsSchema.safeParse(env) : undefined;
  const issues = [...(shared.success ? [] : problems(shared.error)), ...(products && !products.success ? problems(products.error) : [])];
  if (!shared.success || (products && !products.success)) throw new WorkerConfigError(issues);
  const v = shared.data;
  const config: WorkerConfig = {
    origins: v.ALLOWED_ORIGINS,
    authorizedParties: v.CLERK_AUTHORIZED_PARTIES.length ? v.CLERK_AUTHORIZED_PARTIES : v.ALLOWED_ORIGINS,
    clerkJwtKey: v.CLERK_JWT_KEY,
    supabaseUrl: v.SUPABASE_URL.replace(/\/+$/, ''),
    supabaseServiceKey: v.SUPABASE_SERVICE_ROLE_KEY,
    creem: { apiKey: v.CREEM_API_KEY, serverUrl: v.CREEM_SERVER_URL, timeoutMs: v.CREEM_TIMEOUT_SECONDS * 1000 },
    ...(products?.success && {
      products: Object.fromEntries(PLAN_IDS.map((plan) => [plan, products.data[creemProductVariable(plan)]])) as Record<PlanId, string>,
    }),
  };
  cache.set(env, config);
  return config;
}
