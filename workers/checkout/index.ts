/**
 * The checkout worker (product §7's checkout-creation worker): POST `{plan, userId, email}` with the Clerk session
 * token → `{checkout_url}`. The account comes from the token and the Supabase project, never from the body: the
 * body's `userId` must be the caller's own users row id and its `email` is checked but not used; Creem is given the
 * address the token says Clerk verified. Creem's webhooks go to our server, which grants the plan (README, Deploy
 * on Cloudflare).
 */
import { BILLING_REFUSALS, CHECKOUT_SUCCESS_PATH, checkoutRequestSchema, EMAIL_PATTERN } from '../../common/billing.ts';
import { creemCheckoutRequest } from '../../common/creem.ts';
import { isPlanId } from '../../common/plans.ts';
import { accountOf } from '../shared/accounts.ts';
import { askCreem, creemFor } from '../shared/creem.ts';
import { refuse } from '../shared/errors.ts';
import { jsonWorker, parseBody } from '../shared/json-worker.ts';

export default jsonWorker({
  products: true,
  async handle({ config, spaOrigin, person, body }) {
    const input = parseBody(checkoutRequestSchema, body);
    // The same checks in the same order as the server's (server/services/billing.service.ts checkout).
    const account = await accountOf(config, person.clerkId);
    if (!account || input.userId !== account.id) throw refuse(BILLING_REFUSALS.notYourAccount);
    if (!isPlanId(input.plan)) throw refuse(BILLING_REFUSALS.unknownPlan);
    const sent = input.email?.trim();
    const email = person.verifiedEmail;
    if ((sent && !EMAIL_PATTERN.test(sent)) || !email || !EMAIL_PATTERN.test(email)) throw refuse(BILLING_REFUSALS.emailRequired);
    if (account.subscriptionStatus === 'active') throw refuse(BILLING_REFUSALS.alreadySubscribed);
    const request = creemCheckoutRequest({
      productId: config.products![input.plan],
      plan: input.plan,
      userId: account.id,
      email,
      successUrl: `${spaOrigin}${CHECKOUT_SUCCESS_PATH}`,
    });
    const checkout = await askCreem(() => creemFor(config).checkouts.create(request), BILLING_REFUSALS.checkoutFailed);
    if (!checkout.checkoutUrl) {
      console.error('Creem answered a checkout without checkout_url');
      throw refuse(BILLING_REFUSALS.checkoutFailed);
    }
    return { checkout_url: checkout.checkoutUrl };
  },
});
