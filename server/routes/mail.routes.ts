import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { IdentityProvider } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import type { AppEnv } from '../http/context.ts';
import { fromThisMachine } from '../http/loopback-url.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { LocalOutbox } from '../providers/mail/local-outbox.ts';
import { mailPreferences, type UnsubscribeLinks } from '../services/mail.service.ts';
import type { UsersService } from '../services/users.service.ts';
import {
  badUnsubscribeLinkPage,
  confirmUnsubscribePage,
  outboxListPage,
  outboxMessagePage,
  outboxRefusedPage,
  resubscribedPage,
  unsubscribedPage,
} from './mail.pages.ts';

const noStore = async (c: { header: (k: string, v: string) => void }, next: () => Promise<void>) => {
  c.header('Cache-Control', 'no-store');
  await next();
};

/**
 * Mounted at /mail: the unsubscribe link of every notification (RFC 8058). GET (the link clicked, or fetched by
 * a mail scanner) only shows a page naming the masked address with a confirming button; POST acts: a mail
 * client's one-click `List-Unsubscribe=One-Click`, or the page's buttons (off, or back on). The link is signed,
 * so it works without a session and only for the person it names.
 */
export function unsubscribeRoutes(deps: { db: Db; links: UnsubscribeLinks }) {
  const app = new Hono<AppEnv>();
  app.use('*', noStore);
  const here = (u: string, s: string) => `/mail/unsubscribe?u=${encodeURIComponent(u)}&s=${encodeURIComponent(s)}`;

  app.get('/unsubscribe', async (c) => {
    const { u = '', s = '' } = c.req.query();
    const userId = deps.links.verify(u, s);
    const recipient = userId && (await mailPreferences.recipient(deps.db, userId));
    if (!recipient) return c.html(badUnsubscribeLinkPage(), 400);
    return c.html(recipient.on ? confirmUnsubscribePage(here(u, s), recipient.maskedEmail) : unsubscribedPage(here(u, s)));
  });

  app.post('/unsubscribe', async (c) => {
    const { u = '', s = '' } = c.req.query();
    const userId = deps.links.verify(u, s);
    if (!userId || !(await mailPreferences.recipient(deps.db, userId))) return c.html(badUnsubscribeLinkPage(), 400);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const on = form.action === 'subscribe';
    await mailPreferences.set(deps.db, userId, on);
    // A mail client's one-click post wants only a 2xx; a person's form gets the page.
    if (form['List-Unsubscribe'] === 'One-Click') return c.body(null, 204);
    return c.html(on ? resubscribedPage(here(u, s)) : unsubscribedPage(here(u, s)));
  });
  return app;
}

const preferencesSchema = z.object({ email_notifications: z.boolean() });

/** Mounted at /api/me/notifications: the profile switch 'E-mail me when a character or a photo shoot is ready'. */
export function notificationPreferencesRoutes(deps: { db: Db; identity: IdentityProvider; users: UsersService }) {
  const app = new Hono<AppEnv>();
  app.use('*', requireUser(deps.identity, deps.users));
  app.get('/', async (c) => c.json({ email_notifications: await mailPreferences.get(deps.db, c.var.user.id) }));
  app.patch('/', async (c) => {
    const body = parseOrThrow(preferencesSchema, await readJson(c.req.raw));
    await mailPreferences.set(deps.db, c.var.user.id, body.email_notifications);
    return c.json(body);
  });
  return app;
}

export type OutboxPageAccess = 'everyone' | 'loopback' | 'nobody';

/** Whether /sandbox/mail shows the outbox to this request's caller (public-config tells the sign-up screen). */
export function outboxShownTo(c: Context<AppEnv>, access: OutboxPageAccess): boolean {
  return access === 'everyone' || (access === 'loopback' && fromThisMachine(c));
}

/**
 * Mounted at /sandbox/mail: the local outbox, a list and each message as it would have been sent. It holds every
 * account's mail with working reset links, so it is for the machine the server runs on (`access`, from
 * outboxPageAccess in config.ts); with SMTP there is no outbox and no page.
 */
export function outboxRoutes(deps: { outbox?: LocalOutbox; access: OutboxPageAccess }) {
  const app = new Hono<AppEnv>();
  app.use('*', noStore);
  const { outbox, access } = deps;
  if (!outbox) {
    app.all('*', (c) =>
      c.html(outboxRefusedPage('Mail goes out over SMTP on this server (SMTP_URL is set), so nothing is kept here.'), 404),
    );
    return app;
  }
  app.use('*', async (c, next) => {
    if (outboxShownTo(c, access)) return next();
    const reason =
      access === 'nobody'
        ? 'This server is public (it is reached over https or through a proxy), so its mail is not shown here.'
        : 'The local outbox is shown only on the machine this server runs on: open it there, at a localhost address.';
    return c.html(outboxRefusedPage(reason), 404);
  });
  app.get('/', async (c) => c.html(outboxListPage(await outbox.list())));
  app.get('/:id', async (c) => {
    const found = await outbox.read(c.req.param('id'));
    return found
      ? c.html(outboxMessagePage(found.message, found.raw))
      : c.html(outboxRefusedPage('No such message in the local outbox.'), 404);
  });
  // The message's own HTML, alone and inert: no script, nothing loaded from elsewhere but images.
  app.get('/:id/html', async (c) => {
    const found = await outbox.read(c.req.param('id'));
    if (!found) return c.html(outboxRefusedPage('No such message in the local outbox.'), 404);
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'",
    );
    return c.html(found.message.html);
  });
  return app;
}
