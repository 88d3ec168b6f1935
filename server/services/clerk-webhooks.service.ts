import { verifyWebhook } from '@clerk/backend/webhooks';
import { z } from 'zod';
import type { Identity } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import { badRequest, unauthorized, unavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { subscriptionsRepository } from '../repositories/subscriptions.repository.ts';
import type { AccountErasureService } from './account-erasure.service.ts';
import type { SubscriptionCancellation } from './subscription-cancellation.ts';
import type { UsersService } from './users.service.ts';

/** Processed deliveries share the payment providers' table (payment_events), keyed (provider, event id). */
const PROVIDER = 'clerk';

/**
 * verifyWebhook reports every failure as one Error. These are the ones about the delivery's authenticity
 * (standardwebhooks' WebhookVerificationError messages and the SDK's missing-header check); anything else
 * comes after a valid signature, from a body that is not a JSON event.
 */
const NOT_AUTHENTIC =
  /Missing required webhook headers|Missing required headers|No matching signature|timestamp too (old|new)|Invalid Signature Headers/i;

const userSchema = z.object({
  id: z.string().min(1),
  email_addresses: z
    .array(z.object({ id: z.string(), email_address: z.string(), verification: z.object({ status: z.string() }).nullish() }))
    .default([]),
  primary_email_address_id: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  image_url: z.string().nullish(),
  created_at: z.number().nullish(),
});
const deletedSchema = z.object({ id: z.string().min(1) });
const eventSchema = z.object({ type: z.string().min(1), data: z.record(z.string(), z.unknown()) });

export type ClerkWebhookOutcome = 'processed' | 'duplicate' | 'ignored';
/** `webhookUrl`: this server's own sandbox webhook endpoint (the sandbox's cancellations are sent there). */
export type WebhookContext = { webhookUrl: string };

/**
 * A Clerk user as the rest of the server knows people. The verified address is the primary one, and only
 * once Clerk reports it verified; otherwise none (null), so nothing is sent to an address nobody proved.
 */
function identityOf(user: z.infer<typeof userSchema>): Identity {
  const primaryById = user.email_addresses.find((e) => e.id === user.primary_email_address_id);
  const primary = primaryById ?? user.email_addresses[0];
  const fullName = [user.first_name, user.last_name]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ');
  return {
    id: user.id,
    email: primary?.email_address ?? null,
    verifiedEmail: primaryById?.verification?.status === 'verified' ? primaryById.email_address.trim() : null,
    fullName: fullName || null,
    imageUrl: user.image_url || null,
    ...(user.created_at && { createdAt: new Date(user.created_at).toISOString() }),
  };
}

function parse<S extends z.ZodType>(schema: S, data: unknown, type: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success)
    throw badRequest(`The ${type} event's data is not a Clerk user: ${result.error.issues[0].message}.`, 'malformed_webhook');
  return result.data;
}

export type ClerkWebhooksService = ReturnType<typeof createClerkWebhooksService>;

/**
 * POST /api/webhooks/clerk (Svix-signed): user.created and user.updated refresh the users row (its display
 * email and name, and the verified address the server alone writes), user.deleted
 * erases the person. Each delivery (svix-id) is applied once; every action is idempotent as well, so two
 * copies arriving at once do no harm either.
 */
export function createClerkWebhooksService(deps: {
  db: Db;
  users: UsersService;
  erasure: AccountErasureService;
  subscriptions: SubscriptionCancellation;
  signingSecret?: string;
  logger: Logger;
}) {
  const { db, logger } = deps;

  function seen(eventId: string): Promise<boolean> {
    return subscriptionsRepository.eventSeen(db, PROVIDER, eventId);
  }

  async function apply(type: string, data: unknown, ctx: WebhookContext): Promise<ClerkWebhookOutcome> {
    switch (type) {
      case 'user.created':
      case 'user.updated': {
        const saved = await deps.users.sync(identityOf(parse(userSchema, data, type)));
        // An erased account stays erased: a late user.updated does not bring its details back.
        return saved ? 'processed' : 'ignored';
      }
      case 'user.deleted': {
        const providerId = parse(deletedSchema, data, type).id;
        // Their subscriptions are cancelled with the payment provider, as when a person deletes their own
        // account. A refusal does not hold the erasure back: it erases, then answers 502, so Clerk delivers
        // again, which cancels again (erasing twice is harmless).
        const person = await deps.users.findByClerkId(providerId);
        let subscriptionsCancelled = 0;
        let refusal: unknown;
        if (person) {
          try {
            subscriptionsCancelled = await deps.subscriptions.cancelAll(person, ctx.webhookUrl);
          } catch (err) {
            refusal = err;
          }
        }
        const report = await deps.erasure.eraseByProviderId(providerId);
        logger.info({ ...report, subscriptionsCancelled }, 'erased a person deleted in Clerk');
        if (refusal) throw refusal;
        return 'processed';
      }
      default:
        logger.info({ type }, 'Clerk webhook of a type this product does not use; acknowledged and ignored');
        return 'ignored';
    }
  }

  return {
    async handle(request: Request, ctx: WebhookContext): Promise<ClerkWebhookOutcome> {
      if (!deps.signingSecret) {
        throw unavailable('Clerk webhooks are not configured on this server (CLERK_WEBHOOK_SIGNING_SECRET).', 'webhook_not_configured');
      }
      const eventId = request.headers.get('svix-id')?.trim() ?? '';
      let verified: unknown;
      try {
        verified = await verifyWebhook(request, { signingSecret: deps.signingSecret });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (NOT_AUTHENTIC.test(message)) {
          logger.warn({ reason: message, eventId }, 'refused a Clerk webhook');
          throw unauthorized('Invalid webhook signature.');
        }
        logger.warn({ reason: message, eventId }, 'a signed Clerk webhook with a body that is not JSON');
        throw badRequest('The webhook body is not a JSON Clerk event.', 'malformed_webhook');
      }
      const event = eventSchema.safeParse(verified);
      if (!event.success) throw badRequest('The webhook body is not a Clerk event (type and data are required).', 'malformed_webhook');
      const { type, data } = event.data;

      if (await seen(eventId)) {
        logger.info({ eventId, type }, 'Clerk webhook already processed; replay ignored');
        return 'duplicate';
      }
      const outcome = await apply(type, data, ctx);
      // Recorded after it is applied: a failure above leaves no record, so Clerk's retry applies it afresh.
      // Personal data is not kept with the record.
      await subscriptionsRepository.recordEvent(db, { provider: PROVIDER, eventId, eventType: type, payload: null });
      logger.info({ eventId, type, outcome }, 'Clerk webhook');
      return outcome;
    },
  };
}
