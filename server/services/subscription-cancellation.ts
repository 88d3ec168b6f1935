import { ACCOUNT_TEXTS } from '@common/account.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { PaymentProviderError, type PaymentProvider } from '../providers/payments/index.ts';
import { CANNOT_CHARGE, subscriptionsRepository } from '../repositories/subscriptions.repository.ts';
import type { SandboxPaymentsService } from './sandbox-payments.service.ts';
import type { UserRow } from './users.service.ts';

export type SubscriptionCancellation = ReturnType<typeof createSubscriptionCancellation>;

/** Ending a person's subscriptions with the payment provider before their account goes (decision 011). */
export function createSubscriptionCancellation(deps: {
  db: Db;
  payments: PaymentProvider;
  sandboxPayments?: SandboxPaymentsService;
  logger: Logger;
}) {
  const { logger } = deps;
  return {
    /**
     * Cancels every subscription of the person that could still charge them and answers how many. The first
     * refusal stops it with `502 subscription_not_cancelled`, so the caller can stop before erasing anything.
     * `webhookUrl`: where the sandbox sends its `subscription.canceled` (this server's own endpoint).
     */
    async cancelAll(user: UserRow, webhookUrl: string): Promise<number> {
      const live = (await subscriptionsRepository.listForUser(deps.db, user.id)).filter((s) => !CANNOT_CHARGE.has(s.status));
      let cancelled = 0;
      for (const sub of live) {
        if (sub.provider !== deps.payments.name) {
          // Another provider's subscription (the server changed providers): this server cannot reach it.
          logger.warn(
            { userId: user.id, subscriptionId: sub.id, provider: sub.provider },
            'account deletion: a subscription of another payment provider was left as it is',
          );
          continue;
        }
        try {
          if (deps.sandboxPayments) await deps.sandboxPayments.cancel(user, sub.customerId, webhookUrl);
          else if (deps.payments.cancelSubscription) await deps.payments.cancelSubscription(sub.id);
          else throw new PaymentProviderError('This payment provider cannot cancel subscriptions.');
          cancelled++;
        } catch (err) {
          if (!(err instanceof PaymentProviderError || err instanceof AppError)) throw err;
          logger.error(
            { err: err instanceof PaymentProviderError ? (err.cause ?? err) : err, userId: user.id, subscriptionId: sub.id },
            'account deletion stopped: the subscription could not be cancelled',
          );
          throw new AppError(502, 'subscription_not_cancelled', ACCOUNT_TEXTS.subscriptionNotCancelled);
        }
      }
      return cancelled;
    },
  };
}
