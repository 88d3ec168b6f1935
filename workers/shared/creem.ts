import { RequestTimeoutError } from 'creem/models/errors';
import type { BillingRefusal } from '../../common/billing.ts';
import { createCreemClient } from '../../common/creem.ts';
import type { WorkerConfig } from './config.ts';
import { refuse, WORKER_REFUSALS } from './errors.ts';

/**
 * Creem's SDK as the workers use it: one attempt within CREEM_TIMEOUT_SECONDS (the SPA tries a checkout three
 * times itself, product §7), with the server's client and request shapes (common/creem.ts).
 */
export const creemFor = (config: WorkerConfig) => createCreemClient({ ...config.creem, retryForMs: 0 });

/** Runs one Creem call; a timeout is a 504 that says so, any other failure `failed` (502), with the cause logged. */
export async function askCreem<T>(call: () => Promise<T>, failed: BillingRefusal): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    console.error(`Creem call failed (${detail})`);
    throw refuse(err instanceof RequestTimeoutError ? WORKER_REFUSALS.providerTimeout : failed);
  }
}
