/**
 * The customer-portal worker (product §7): POST `{customer_id}` with the Clerk session token →
 * `{customer_portal_link}`, only for an active subscription. The customer is the one the caller's users row names
 * (read from the Supabase project); a body naming any other customer is refused, so nobody opens another person's
 * portal with an id they learned.
 */
import { BILLING_REFUSALS, portalRequestSchema } from '../../common/billing.ts';
import { accountOf } from '../shared/accounts.ts';
import { askCreem, creemFor } from '../shared/creem.ts';
import { refuse } from '../shared/errors.ts';
import { jsonWorker, parseBody } from '../shared/json-worker.ts';

export default jsonWorker({
  products: false,
  async handle({ config, person, body }) {
    const input = parseBody(portalRequestSchema, body);
    // The same checks in the same order as the server's (server/services/billing.service.ts portal).
    const account = await accountOf(config, person.clerkId);
    const customerId = account?.creemCustomerId;
    if (!account || !customerId || input.customer_id !== customerId) throw refuse(BILLING_REFUSALS.notYourCustomer);
    if (account.subscriptionStatus !== 'active') throw refuse(BILLING_REFUSALS.notSubscribed);
    const links = await askCreem(() => creemFor(config).customers.generateBillingLinks({ customerId }), BILLING_REFUSALS.portalFailed);
    return { customer_portal_link: links.customerPortalLink };
  },
});
