import { createHmac } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { PaymentProvider } from './provider.ts';
import { createSandboxProvider } from './sandbox.ts';

export * from './provider.ts';

/**
 * Creem when a key is set, else the sandbox. The sandbox's secret must be the same on every instance (its
 * checkout addresses are signed with it), so with a shared AUTH_SECRET it is derived from that; `localSecret`
 * makes (once) and keeps one in the data folder otherwise. Creem's SDK, like S3's and Clerk's, is loaded only in
 * the mode that uses it: it holds 14 MB of heap, which every major GC marks again
 * (docs/decisions/014-generate-path.md, fifth pass).
 */
export async function createPaymentProvider(config: Config, localSecret: (name: string) => string): Promise<PaymentProvider> {
  if (config.CREEM_API_KEY) {
    const { createCreemProvider } = await import('./creem.ts');
    return createCreemProvider({
      apiKey: config.CREEM_API_KEY,
      webhookSecret: config.CREEM_WEBHOOK_SECRET!,
      products: {
        BASIC: config.CREEM_PRODUCT_BASIC!,
        STANDARD: config.CREEM_PRODUCT_STANDARD!,
        PROFESSIONAL: config.CREEM_PRODUCT_PROFESSIONAL!,
      },
      // The config has all three or none.
      packs: config.CREEM_PRODUCT_PACK_500
        ? {
            PACK_500: config.CREEM_PRODUCT_PACK_500,
            PACK_1500: config.CREEM_PRODUCT_PACK_1500!,
            PACK_5000: config.CREEM_PRODUCT_PACK_5000!,
          }
        : undefined,
      serverUrl: config.CREEM_SERVER_URL,
    });
  }
  const webhookSecret =
    config.SANDBOX_WEBHOOK_SECRET ??
    (config.AUTH_SECRET
      ? createHmac('sha256', config.AUTH_SECRET).update('sandbox-webhook-secret').digest('base64url')
      : localSecret('sandbox-webhook-secret'));
  return createSandboxProvider({ webhookSecret, publicUrl: config.PUBLIC_URL });
}
