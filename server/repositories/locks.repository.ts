import { sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';

/** Locks that serialise work across instances without a row of their own. */
export const locksRepository = {
  /** Waits for the transaction-level advisory lock `key`, held until the transaction ends. */
  async lockForTransaction(tx: Executor, key: number): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(${key})`);
  },
};
