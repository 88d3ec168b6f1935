import type { SandboxProvider } from '../../server/providers/payments/sandbox.ts';
import { createSandboxTopUpsService } from '../../server/services/sandbox-top-ups.service.ts';

export interface CapturedPayment {
  /** The signed return address the payer comes back to. */
  back: URL;
  /** The signed checkout.completed the sandbox's Pay would have delivered: the test delivers it, in any order. */
  event: { body: string; signature: string };
}

/**
 * Pays a pack's sandbox checkout (`checkoutUrl`, as the checkout route answered it) as its Pay button does, but keeps
 * the webhook event instead of delivering it, so a test can race it against the return address.
 */
export async function payCapturingEvent(sandbox: SandboxProvider, serverUrl: string, checkoutUrl: string): Promise<CapturedPayment> {
  const checkout = sandbox.readTopUpCheckout(new URL(checkoutUrl).pathname.split('/').pop()!);
  if (!checkout) throw new Error(`not a sandbox pack checkout: ${checkoutUrl}`);
  let event: CapturedPayment['event'] | undefined;
  const captured = { ...sandbox, deliver: async (_url: string, e: CapturedPayment['event']) => void (event = e) };
  const back = new URL(await createSandboxTopUpsService({ sandbox: captured }).pay(checkout, ''), serverUrl);
  if (!event) throw new Error('the sandbox paid without an event');
  return { back, event };
}
