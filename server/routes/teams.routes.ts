import { Hono } from 'hono';
import { z } from 'zod';
import { topUpReturnSchema } from '@common/credits.ts';
import {
  createTeamSchema,
  inviteListSchema,
  MEMBER_STATUSES,
  openLinkSchema,
  submissionSchema,
  teamLookSchema,
  teamPurchaseSchema,
  teamSettingsSchema,
} from '@common/teams.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { CallerEnv } from '../http/context.ts';
import { requireCaller } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import { zipDownload } from '../http/zip-download.ts';
import type { UsersService } from '../services/users.service.ts';
import type { TeamsService } from '../services/teams.service.ts';
import type { TeamInvitesService } from '../services/team-invites.service.ts';
import type { TeamArchiveService } from '../services/team-archive.service.ts';
import type { TeamPurchasesService } from '../services/team-purchases.service.ts';
import { serverUrlOf, spaUrlOf } from '../http/security.ts';

const roleBody = z.object({ role: z.enum(['manager', 'member'], { error: 'must be manager or member' }) });
const membersQuery = z.object({ status: z.enum(MEMBER_STATUSES).optional() });
const token = z.string().min(1).max(200);

/** Mounted at /api: teams (issue 49). Every rule is the services'; these only parse and answer. */
export function teamsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  teams: TeamsService;
  teamInvites: TeamInvitesService;
  teamArchive: TeamArchiveService;
  teamPurchases: TeamPurchasesService;
  publicUrl?: string;
  spaOrigins: string[];
}) {
  const app = new Hono<CallerEnv>();
  // Only the caller's id is read here (membership is the teams' access rule): a session read moments ago is not
  // read again (requireCaller), which the lead's dashboard, read on every change, feels most.
  const auth = requireCaller(deps.identity, deps.users);
  const noStore = { 'Cache-Control': 'no-store' };

  app.post('/teams', auth, async (c) => {
    const { name } = parseOrThrow(createTeamSchema, await readJson(c.req.raw));
    return c.json(await deps.teams.create(c.var.userId, name), 201);
  });
  app.get('/teams', auth, async (c) => c.json({ items: await deps.teams.listMine(c.var.userId) }, 200, noStore));
  app.get('/teams/:id', auth, async (c) => c.json(await deps.teams.get(c.var.userId, c.req.param('id')), 200, noStore));
  app.patch('/teams/:id', auth, async (c) => {
    const body = parseOrThrow(teamSettingsSchema, await readJson(c.req.raw));
    return c.json(await deps.teams.updateSettings(c.var.userId, c.req.param('id'), body));
  });
  app.put('/teams/:id/look', auth, async (c) => {
    const body = parseOrThrow(teamLookSchema, await readJson(c.req.raw));
    return c.json(await deps.teams.setLook(c.var.userId, c.req.param('id'), body));
  });
  // 'Buy team credits' (owner): a pack's one-time checkout for the team; the payer comes back to the team page.
  app.post('/teams/:id/credits/checkout', auth, async (c) => {
    const { pack } = parseOrThrow(teamPurchaseSchema, await readJson(c.req.raw));
    const id = c.req.param('id');
    const successUrl = `${spaUrlOf(c.req.raw, deps)}/app/teams/${encodeURIComponent(id)}?purchase=done`;
    const addresses = { successUrl, serverUrl: serverUrlOf(c.req.raw, deps.publicUrl) };
    return c.json(await deps.teamPurchases.checkout(c.var.userId, id, pack, addresses));
  });
  // The owner back from the checkout with the provider's signed return address: grants the order now if its webhook
  // has not (once in all, whichever comes first).
  app.post('/teams/:id/credits/return', auth, async (c) => {
    const params = parseOrThrow(topUpReturnSchema, await readJson(c.req.raw));
    return c.json(await deps.teamPurchases.confirmReturn(c.var.userId, c.req.param('id'), params));
  });
  app.get('/teams/:id/credits', auth, async (c) => c.json(await deps.teams.credits(c.var.userId, c.req.param('id')), 200, noStore));

  app.get('/teams/:id/members', auth, async (c) => {
    const filter = parseOrThrow(membersQuery, c.req.query());
    return c.json({ items: await deps.teams.members(c.var.userId, c.req.param('id'), filter) }, 200, noStore);
  });
  app.get('/teams/:id/me', auth, async (c) => c.json(await deps.teams.myStatus(c.var.userId, c.req.param('id')), 200, noStore));
  app.put('/teams/:id/members/:userId/role', auth, async (c) => {
    const { role } = parseOrThrow(roleBody, await readJson(c.req.raw));
    await deps.teams.setRole(c.var.userId, c.req.param('id'), c.req.param('userId'), role);
    return c.json({ ok: true });
  });
  app.delete('/teams/:id/members/:userId', auth, async (c) =>
    c.json(await deps.teams.remove(c.var.userId, c.req.param('id'), c.req.param('userId'))),
  );
  app.post('/teams/:id/members/:userId/approve', auth, async (c) => {
    await deps.teams.review(c.var.userId, c.req.param('id'), c.req.param('userId'), 'approved');
    return c.json({ ok: true });
  });
  app.post('/teams/:id/members/:userId/ask-again', auth, async (c) => {
    await deps.teams.review(c.var.userId, c.req.param('id'), c.req.param('userId'), 'ask_again');
    return c.json({ ok: true });
  });
  app.post('/teams/:id/remind', auth, async (c) => c.json(await deps.teams.remind(c.var.userId, c.req.param('id'))));
  app.put('/teams/:id/submission', auth, async (c) => {
    const { generation_ids } = parseOrThrow(submissionSchema, await readJson(c.req.raw));
    return c.json(await deps.teams.submit(c.var.userId, c.req.param('id'), generation_ids));
  });
  app.get('/teams/:id/archive', auth, async (c) => {
    const { body, filename } = await deps.teamArchive.archive(c.var.userId, c.req.param('id'));
    return zipDownload(c, body, filename);
  });

  app.get('/teams/:id/invites', auth, async (c) =>
    c.json({ items: await deps.teamInvites.list(c.var.userId, c.req.param('id')) }, 200, noStore),
  );
  app.post('/teams/:id/invites', auth, async (c) => {
    const body = parseOrThrow(inviteListSchema, await readJson(c.req.raw));
    return c.json(await deps.teamInvites.importList(c.var.userId, c.req.param('id'), body));
  });
  app.post('/teams/:id/invites/:inviteId/resend', auth, async (c) =>
    c.json(await deps.teamInvites.resend(c.var.userId, c.req.param('id'), c.req.param('inviteId'))),
  );
  app.post('/teams/:id/invites/:inviteId/revoke', auth, async (c) =>
    c.json(await deps.teamInvites.revoke(c.var.userId, c.req.param('id'), c.req.param('inviteId'))),
  );
  app.post('/teams/:id/open-links', auth, async (c) => {
    const body = parseOrThrow(openLinkSchema, await readJson(c.req.raw));
    return c.json(await deps.teamInvites.createOpenLink(c.var.userId, c.req.param('id'), body), 201);
  });

  // The welcome page reads this signed out; accepting needs an account.
  app.get('/team-invites/:token', async (c) =>
    c.json(await deps.teamInvites.welcome(parseOrThrow(token, c.req.param('token'))), 200, noStore),
  );
  app.post('/team-invites/:token/accept', auth, async (c) =>
    c.json(await deps.teamInvites.accept(c.var.userId, parseOrThrow(token, c.req.param('token')))),
  );
  return app;
}
