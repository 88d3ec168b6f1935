import { Hono } from 'hono';
import type { Identity, IdentityProvider } from '../auth/identity.ts';
import { ACCOUNT_TEXTS, deleteAccountSchema } from '@common/account.ts';
import type { AppEnv } from '../http/context.ts';
import { zipDownload } from '../http/zip-download.ts';
import { conflict, unauthorized } from '../domain/errors.ts';
import { sandboxWebhookUrl } from '../http/loopback-url.ts';
import { requireUser, syncUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { AccountDataService } from '../services/account-data.service.ts';
import type { RatePolicies } from '../services/rate-policies.service.ts';
import type { UsersService, UserRow } from '../services/users.service.ts';

/** The caller's own record as the SPA reads it (product §3 users, plus the identity's profile fields). */
export function toMe(user: UserRow, identity: Identity) {
  return {
    id: user.id,
    clerk_id: user.clerkId,
    email: user.email,
    full_name: user.fullName,
    credits: user.credits,
    updated_at: user.updatedAt,
    subscription_status: user.subscriptionStatus,
    subscription_plan: user.subscriptionPlan,
    creem_customer_id: user.creemCustomerId,
    image_url: identity.imageUrl ?? null,
    joined_at: identity.createdAt ?? user.createdAt.toISOString(),
  };
}
export type Me = ReturnType<typeof toMe>;

export function meRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  ratePolicies: RatePolicies;
  accountData: AccountDataService;
}) {
  const app = new Hono<AppEnv>();
  const auth = requireUser(deps.identity, deps.users);

  // User sync (product §4): create or refresh the caller's users row.
  app.post('/sync', async (c) => {
    const identity = await deps.identity.identify(c.req.raw.headers);
    if (!identity) throw unauthorized();
    const user = await syncUser(deps.identity, deps.users, identity);
    return c.json(toMe(user, identity));
  });

  app.get('/', auth, (c) => c.json(toMe(c.var.user, c.var.identity)));

  // 'Delete account'. In Clerk mode Clerk deletes the account (re-verifying the person itself) and its
  // user.deleted webhook erases. Built-in accounts confirm with their address, then the current password,
  // checked before anything is cancelled or erased.
  app.post('/delete', auth, async (c) => {
    if (deps.identity.name === 'clerk' || !deps.identity.confirmPassword)
      throw conflict(ACCOUNT_TEXTS.clerkMode, 'delete_with_identity_provider');
    const { email, password } = parseOrThrow(deleteAccountSchema, await readJson(c.req.raw));
    const { confirmPassword } = deps.identity;
    await deps.accountData.deleteOwn(c.var.user, email, {
      webhookUrl: sandboxWebhookUrl(c),
      confirm: () => confirmPassword(c.var.identity.id, password),
    });
    // The erasure deleted the built-in login with its sessions; the SPA signs out, which clears the cookie.
    return c.body(null, 204);
  });

  // 'Download my data': a streamed ZIP, at most one per account per EXPORT_INTERVAL_MINUTES.
  app.get('/export', auth, async (c) => {
    await deps.ratePolicies.admitExport(c.var.user.id);
    const now = new Date();
    return zipDownload(c, deps.accountData.exportArchive(c.var.user, now), deps.accountData.exportFileName(now));
  });
  return app;
}
