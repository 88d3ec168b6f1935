import { createHash, randomBytes } from 'node:crypto';
import {
  classifyInvites,
  domainOf,
  INVITE_DAYS,
  INVITE_REFUSAL_TEXT,
  INVITE_ROW_LIMIT,
  parseInviteList,
  TEAM_TEXTS,
  type InviteRefusal,
  type InviteReportRow,
  type InviteWelcome,
  type TeamInviteView,
} from '@common/teams.ts';
import type { Db } from '../db/index.ts';
import { AppError, conflict, forbidden, notFound, payloadTooLarge } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { shootsRepository } from '../repositories/shoots.repository.ts';
import { teamInvitesRepository as repo, type TeamInviteRow } from '../repositories/team-invites.repository.ts';
import { teamsRepository } from '../repositories/teams.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { enqueueTeamMail } from './mail.service.ts';
import { requireMembership } from './team-access.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const newToken = () => randomBytes(24).toString('base64url');
/** Only a token's hash is looked up (and, for personal invites, kept): a leaked table holds no usable link. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const noSuchInvite = () => notFound('There is no such invite.');

export const inviteRefused = (reason: InviteRefusal) =>
  new AppError(reason === 'unknown' ? 404 : 410, `invite_${reason}`, INVITE_REFUSAL_TEXT[reason]);

/** Why a link cannot be used now, or null when it can. */
export function inviteRefusal(row: TeamInviteRow | undefined, now = new Date()): InviteRefusal | null {
  if (!row) return 'unknown';
  if (row.revokedAt) return 'revoked';
  if (row.kind === 'personal' && row.usedAt) return 'used';
  if (row.expiresAt && row.expiresAt <= now) return 'expired';
  if (row.kind === 'open' && row.usageLimit !== null && row.useCount >= row.usageLimit) return 'full';
  return null;
}

function toView(row: TeamInviteRow): TeamInviteView {
  return {
    id: row.id,
    kind: row.kind,
    email: row.email,
    name: row.name,
    title: row.title,
    token: row.kind === 'open' ? row.token : null,
    domain: row.domain,
    usage_limit: row.usageLimit,
    use_count: row.useCount,
    expires_at: row.expiresAt?.toISOString() ?? null,
    revoked: Boolean(row.revokedAt),
    expired: Boolean(row.expiresAt && row.expiresAt <= new Date()),
  };
}

export type TeamInvitesService = ReturnType<typeof createTeamInvitesService>;

export function createTeamInvitesService(deps: { db: Db; events: EventBus; logger: Logger }) {
  const { db } = deps;

  return {
    /**
     * Pasted addresses or a CSV: the row-by-row report, and with `send` the invites of every row marked
     * 'invite', each mailed its personal link — all in one transaction, so nothing is half sent.
     */
    async importList(
      userId: string,
      teamId: string,
      input: { text: string; send: boolean },
    ): Promise<{ rows: InviteReportRow[]; sent: number }> {
      await requireMembership(db, userId, teamId, 'lead');
      const { rows: parsed, total } = parseInviteList(input.text);
      if (total > INVITE_ROW_LIMIT) throw payloadTooLarge(TEAM_TEXTS.rowLimit(total));
      const team = (await teamsRepository.findTeam(db, teamId))!;
      const known = async (tx: Db | Parameters<Parameters<Db['transaction']>[0]>[0]) => ({
        members: await teamsRepository.memberEmails(tx, teamId),
        invited: await repo.pendingEmails(tx, teamId),
        domain: team.domain,
      });
      if (!input.send) return { rows: classifyInvites(parsed, await known(db)), sent: 0 };
      try {
        return await db.transaction(async (tx) => {
          const rows = classifyInvites(parsed, await known(tx));
          const expiresAt = new Date(Date.now() + INVITE_DAYS * DAY_MS);
          const toSend = rows.filter((r) => r.outcome === 'invite').map((r) => ({ ...r, token: newToken() }));
          await repo.insertMany(
            tx,
            toSend.map((r) => ({
              teamId,
              kind: 'personal' as const,
              tokenHash: tokenHash(r.token),
              email: r.email,
              name: r.name,
              title: r.title,
              expiresAt,
              createdBy: userId,
              sentAt: new Date(),
            })),
          );
          for (const r of toSend)
            await enqueueTeamMail(tx, r.email, 'team-invite', { token: r.token, team: team.name, dueDate: team.dueDate });
          return { rows, sent: toSend.length };
        });
      } catch (err) {
        // Another lead invited one of these addresses meanwhile (the pending-invite index): nothing was sent.
        if ((err as { code?: string }).code === '23505' || String((err as Error).message).includes('team_invites_pending_email_key'))
          throw conflict(
            'Someone invited some of these people at the same moment. Nothing was sent; check the list again.',
            'team_invite_race',
          );
        throw err;
      }
    },

    async list(userId: string, teamId: string): Promise<TeamInviteView[]> {
      await requireMembership(db, userId, teamId, 'lead');
      return (await repo.list(db, teamId)).map(toView);
    },

    /** A new link (the old one stops working) for another 7 days, mailed again. */
    async resend(userId: string, teamId: string, inviteId: string): Promise<TeamInviteView> {
      await requireMembership(db, userId, teamId, 'lead');
      if (!UUID.test(inviteId)) throw noSuchInvite();
      const team = (await teamsRepository.findTeam(db, teamId))!;
      return db.transaction(async (tx) => {
        const row = await repo.find(tx, teamId, inviteId, true);
        if (!row || row.kind !== 'personal') throw noSuchInvite();
        if (row.usedAt) throw conflict('This invite has been accepted already.', 'invite_used');
        if (row.revokedAt) throw conflict('This invite was withdrawn. Invite the person again.', 'invite_revoked');
        const token = newToken();
        const updated = await repo.update(tx, row.id, {
          tokenHash: tokenHash(token),
          expiresAt: new Date(Date.now() + INVITE_DAYS * DAY_MS),
          sentAt: new Date(),
        });
        await enqueueTeamMail(tx, row.email!, 'team-invite', { token, team: team.name, dueDate: team.dueDate });
        return toView(updated);
      });
    },

    async revoke(userId: string, teamId: string, inviteId: string): Promise<TeamInviteView> {
      await requireMembership(db, userId, teamId, 'lead');
      if (!UUID.test(inviteId)) throw noSuchInvite();
      return db.transaction(async (tx) => {
        const row = await repo.find(tx, teamId, inviteId, true);
        if (!row) throw noSuchInvite();
        if (row.usedAt) throw conflict('This invite has been accepted already.', 'invite_used');
        return toView(row.revokedAt ? row : await repo.update(tx, row.id, { revokedAt: new Date() }));
      });
    },

    /** An open link: anyone with it may join, within its domain, usage limit and expiry. */
    async createOpenLink(
      userId: string,
      teamId: string,
      opts: { domain: string | null; usage_limit: number | null; expires_at: string | null },
    ): Promise<TeamInviteView> {
      await requireMembership(db, userId, teamId, 'lead');
      const token = newToken();
      const [row] = await repo.insertMany(db, [
        {
          teamId,
          kind: 'open',
          token,
          tokenHash: tokenHash(token),
          domain: opts.domain,
          usageLimit: opts.usage_limit,
          expiresAt: opts.expires_at ? new Date(opts.expires_at) : null,
          createdBy: userId,
        },
      ]);
      return toView(row);
    },

    /** The welcome page (no sign-in needed): the team, its due date and look, or why the link cannot be used. */
    async welcome(token: string): Promise<InviteWelcome> {
      const row = await repo.findByHash(db, tokenHash(token));
      const refusal = inviteRefusal(row);
      if (refusal) return { ok: false, reason: refusal, message: INVITE_REFUSAL_TEXT[refusal] };
      const team = (await teamsRepository.findTeam(db, row!.teamId))!;
      const pack = team.packId ? await shootsRepository.findPack(db, team.packId) : undefined;
      return {
        ok: true,
        team: team.name,
        due_date: team.dueDate,
        look: { pack_name: pack?.name ?? null, aspect_ratio: team.aspectRatio },
        domain: row!.domain ?? (row!.kind === 'personal' ? null : team.domain),
      };
    },

    /**
     * Joins the team through a link, signed in: a personal link once, an open link within its limits and
     * domain (the account's verified address). Someone already in the team just gets the team back.
     */
    async accept(userId: string, token: string): Promise<{ team_id: string }> {
      const outcome = await db.transaction(async (tx) => {
        const row = await repo.findByHash(tx, tokenHash(token), true);
        if (row && (await teamsRepository.membership(tx, row.teamId, userId))) return { team_id: row.teamId, joined: false };
        const refusal = inviteRefusal(row);
        if (refusal) throw inviteRefused(refusal);
        const invite = row!;
        const email = await usersRepository.verifiedEmailOf(tx, userId);
        if (invite.kind === 'open' && invite.domain && (!email || domainOf(email) !== invite.domain))
          throw forbidden(TEAM_TEXTS.outsideDomain(invite.domain), 'invite_outside_domain');
        const name = invite.name ?? (await teamsRepository.personName(tx, userId));
        await teamsRepository.insertMember(tx, {
          teamId: invite.teamId,
          userId,
          role: 'member',
          name,
          title: invite.title,
          email: email?.toLowerCase() ?? invite.email,
        });
        if (invite.kind === 'personal') await repo.update(tx, invite.id, { usedAt: new Date(), usedBy: userId });
        else await repo.countUse(tx, invite.id);
        for (const lead of await teamsRepository.leadIds(tx, invite.teamId))
          await deps.events.publish(tx, lead, { type: 'team', teamId: invite.teamId });
        return { team_id: invite.teamId, joined: true };
      });
      if (outcome.joined) deps.logger.info({ userId, teamId: outcome.team_id }, 'joined a team through an invite');
      return { team_id: outcome.team_id };
    },
  };
}
