import { forbidden } from '../domain/errors.ts';
import { sandboxIds, sandboxTopUpProduct, type SandboxProvider, type SandboxTopUpCheckout } from '../providers/payments/sandbox.ts';
import type { UserRow } from './users.service.ts';

export type SandboxTopUpsService = ReturnType<typeof createSandboxTopUpsService>;

/**
 * The sandbox's one-time checkout of a credit pack: 'Pay' posts a signed checkout.completed of a one-time product
 * (an order, no subscription), as Creem does, and sends the payer back with a signed return address naming the
 * order, so both reach the product, and the product credits the order once.
 */
export function createSandboxTopUpsService(deps: { sandbox: SandboxProvider }) {
  const { sandbox } = deps;
  return {
    readCheckout(id: string, user: UserRow | undefined): SandboxTopUpCheckout | undefined {
      const checkout = sandbox.readTopUpCheckout(id);
      if (checkout && user && checkout.userId !== user.id) throw forbidden('This checkout belongs to another account.');
      return checkout;
    },

    /** Pays the checkout (the same checkout paid twice is the same order) and answers where the payer returns. */
    async pay(checkout: SandboxTopUpCheckout, webhookUrl: string): Promise<string> {
      const ids = sandboxIds(`topup:${checkout.id}`);
      const product = sandboxTopUpProduct(checkout.pack);
      const customerId = sandbox.customerIdFor(checkout.userId);
      const event = sandbox.signedEvent(
        'checkout.completed',
        {
          id: ids.checkout,
          object: 'checkout',
          mode: 'sandbox',
          status: 'completed',
          units: 1,
          request_id: checkout.requestId,
          product,
          order: {
            id: ids.order,
            object: 'order',
            customer: customerId,
            product: product.id,
            amount: product.price,
            currency: 'USD',
            status: 'paid',
            type: 'onetime',
            transaction: ids.transaction,
            mode: 'sandbox',
          },
          customer: { id: customerId, object: 'customer', email: checkout.email, mode: 'sandbox' },
          success_url: checkout.successUrl,
          metadata: { userId: checkout.userId, pack: checkout.pack },
        },
        `${ids.event}_topup`,
      );
      await sandbox.deliver(webhookUrl, event);
      return sandbox.signedReturnUrl(checkout.successUrl, {
        checkout_id: ids.checkout,
        order_id: ids.order,
        customer_id: customerId,
        product_id: product.id,
        request_id: checkout.requestId,
      });
    },
  };
}
