import { isLowBalance, type LowBalanceStatus } from '@common/credits.ts';
import type { Db, Executor } from '../db/index.ts';
import { creditHistoryRepository } from '../repositories/credit-history.repository.ts';
import { creditsRepository } from '../repositories/credits.repository.ts';
import { periodStartOf } from './credits-history.service.ts';
import { enqueueLowBalance } from './mail.service.ts';

export type LowBalanceService = ReturnType<typeof createLowBalanceService>;

/**
 * Low balance (issue 50 item 5): the balance fell below what the last paid action cost. The SPA asks for the status
 * and shows a notice with 'Top up'; every debit that brings the balance that low mails the person, at most once per
 * period (the outbox's dedupe key names the period) and only while their notifications are on.
 */
export function createLowBalanceService(deps: { db: Db }) {
  return {
    /** After a debit of `cost` left `balance`, in the debit's transaction (credits.service calls it). */
    async afterDebit(tx: Executor, userId: string, balance: number, cost: number): Promise<void> {
      if (!isLowBalance(balance, cost)) return;
      const period = await periodStartOf(tx, userId, new Date());
      await enqueueLowBalance(tx, userId, { balance, cost, period: period.toISOString() });
    },

    async status(userId: string): Promise<LowBalanceStatus> {
      const [balance, last] = await Promise.all([
        creditsRepository.balance(deps.db, userId),
        creditHistoryRepository.lastSpend(deps.db, userId),
      ]);
      const credits = balance ?? 0;
      return { low: isLowBalance(credits, last?.cost), balance: credits, last: last ? { kind: last.entry, cost: last.cost } : null };
    },
  };
}
