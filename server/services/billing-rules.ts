import type { BillingRefusal } from '@common/billing.ts';
import { AppError } from '../domain/errors.ts';

/**
 * Subscription statuses under which the user keeps the paid plan (users.subscription_status = 'active'):
 * a scheduled cancellation runs to the end of the paid period, and past_due is the provider's retry window
 * (the user must still reach the portal to fix the card). See docs/decisions/001-billing-events.md.
 */
export const ENTITLED = new Set(['active', 'scheduled_cancel', 'past_due']);

/** A refusal shared with the checkout and portal workers (common/billing.ts), as the domain's error. */
export const refusal = (r: BillingRefusal) => new AppError(r.status, r.code, r.message);
