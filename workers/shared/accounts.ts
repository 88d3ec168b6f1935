import { SESSION_REFUSALS } from '../../common/clerk-session.ts';
import type { WorkerConfig } from './config.ts';
import { refuse, WORKER_REFUSALS } from './errors.ts';

/** The users row of the signed-in person, as the workers need it. */
export interface Account {
  /** users.id: what a checkout's metadata carries, and what the SPA sends as `userId`. */
  id: string;
  subscriptionStatus: string | null;
  subscriptionPlan: string | null;
  creemCustomerId: string | null;
}

/** How long the workers wait for Supabase before answering that the account could not be checked. */
const LOOKUP_TIMEOUT_MS = 5_000;

const unavailable = () => refuse(WORKER_REFUSALS.accountUnavailable);

interface UserRow {
  id: string;
  subscription_status: string | null;
  subscription_plan: string | null;
  creem_customer_id: string | null;
  erased_at: string | null;
}

/**
 * The person's users row, read through the Supabase project's PostgREST with its secret (service_role) key: the
 * one place that says which account, plan and Creem customer a Clerk user has. Null when there is no row yet (the
 * SPA's user sync makes it, product §4); an erased account is refused as the server refuses it.
 */
export async function accountOf(config: WorkerConfig, clerkId: string): Promise<Account | null> {
  const url = new URL(`${config.supabaseUrl}/rest/v1/users`);
  url.searchParams.set('select', 'id,subscription_status,subscription_plan,creem_customer_id,erased_at');
  url.searchParams.set('clerk_id', `eq.${clerkId}`);
  url.searchParams.set('limit', '1');
  const key = config.supabaseServiceKey;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: {
        apikey: key,
        // A legacy service_role key is a JWT and goes as the bearer token too; a secret key (sb_secret_…) only as apikey.
        ...(key.startsWith('sb_') ? {} : { authorization: `Bearer ${key}` }),
        accept: 'application/json',
      },
      signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
    });
  } catch (err) {
    console.error('Supabase could not be reached for an account lookup:', String(err));
    throw unavailable();
  }
  if (!res.ok) {
    console.error(`Supabase answered ${res.status} to an account lookup:`, (await res.text().catch(() => '')).slice(0, 500));
    throw unavailable();
  }
  const rows = (await res.json().catch(() => null)) as UserRow[] | null;
  if (!Array.isArray(rows)) {
    console.error('Supabase answered an account lookup with something other than a list of rows');
    throw unavailable();
  }
  const row = rows[0];
  if (!row) return null;
  if (row.erased_at) throw refuse(SESSION_REFUSALS.accountDeleted);
  return {
    id: row.id,
    subscriptionStatus: row.subscription_status,
    subscriptionPlan: row.subscription_plan,
    creemCustomerId: row.creem_customer_id,
  };
}
