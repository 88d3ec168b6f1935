import {
  INVITE_DAYS,
  memberStatus,
  NOT_DONE,
  REMIND_HOURS,
  type TeamLook,
  type TeamMemberView,
  type TeamMemberWork,
  type TeamPack,
  type TeamRole,
  type TeamView,
} from '@common/teams.ts';
import { PACK_ASPECTS, type PackAspect } from '@common/photo-shoots.ts';
import type { Db, Executor } from '../db/index.ts';
import { badRequest, conflict, notFound } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { shootsRepository } from '../repositories/shoots.repository.ts';
import { teamCreditsRepository } from '../repositories/team-credits.repository.ts';
import { teamInvitesRepository } from '../repositories/team-invites.repository.ts';
import { teamsRepository as repo, type TeamRow } from '../repositories/teams.repository.ts';
import { trainingsRepository } from '../repositories/trainings.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import type { CreditsService } from './credits.service.ts';
import { enqueueTeamMail } from './mail.service.ts';
import { refundWork } from './team-credits.service.ts';
import { finishTrainingIn } from './trainings.service.ts';
import { isUuid, ownerOnly, requireMembership, teamPackId } from './team-access.ts';
import { DAY_MS, newToken, tokenHash } from './team-invites.service.ts';

const noSuchMember = () => notFound('That person is not in this team.');
export const REMOVED_FROM_TEAM = 'Cancelled: you were removed from the team. The team’s credits have been refunded.';
const cancelKey = (shootId: string) => `shoot-cancel:${shootId}`;

function teamView(team: TeamRow, role: TeamRole, packName: string | null): TeamView {
  const look = team.teamPack as { from: 'catalogue'; pack_id: string } | ({ from: 'team' } & TeamPack) | null;
  return {
    id: team.id,
    name: team.name,
    role,
    // Every member sees the balance their team work is paid from (the space switcher shows it, issue 49).
    credits: team.credits,
    domain: team.domain,
    due_date: team.dueDate,
    aspect_ratio: team.aspectRatio,
    pack_id: look?.from === 'catalogue' ? look.pack_id : null,
    pack_name: packName,
    team_pack:
      look?.from === 'team'
        ? { name: look.name, backdrop: look.backdrop, clothing: look.clothing, framing: look.framing, prompts: look.prompts }
        : null,
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;

export function createTeamsService(deps: { db: Db; events: EventBus; credits: CreditsService; metrics: Metrics; logger: Logger }) {
  const { db, events } = deps;

  async function view(team: TeamRow, role: TeamRole): Promise<TeamView> {
    const pack = team.packId ? await shootsRepository.findPack(db, team.packId) : undefined;
    return teamView(team, role, pack?.name ?? null);
  }

  /** Tells the member and the team's leads that the member's team work changed (the dashboard refetches). */
  async function tell(tx: Executor, teamId: string, userId?: string) {
    const to = new Set(await repo.leadIds(tx, teamId));
    if (userId) to.add(userId);
    for (const id of to) await events.publish(tx, id, { type: 'team', teamId });
  }

  return {
    requireMembership: (userId: string, teamId: string, need: 'member' | 'lead' | 'owner') => requireMembership(db, userId, teamId, need),

    /** Any signed-in person creates a team and owns it. */
    async create(userId: string, name: string): Promise<TeamView> {
      const team = await db.transaction(async (tx) => {
        const fullName = await repo.personName(tx, userId);
        const team = await repo.insertTeam(tx, { name, ownerId: userId });
        const email = await usersRepository.verifiedEmailOf(tx, userId);
        await repo.insertMember(tx, { teamId: team.id, userId, role: 'owner', name: fullName, title: null, email });
        return team;
      });
      deps.logger.info({ userId, teamId: team.id }, 'created a team');
      return view(team, 'owner');
    },

    async listMine(userId: string): Promise<TeamView[]> {
      const rows = await repo.listForUser(db, userId);
      return Promise.all(rows.map((r) => view(r.team, r.role)));
    },

    async get(userId: string, teamId: string): Promise<TeamView> {
      const m = await requireMembership(db, userId, teamId, 'member');
      return view((await repo.findTeam(db, teamId))!, m.role);
    },

    /** The team's balance and its latest ledger rows (leads only). */
    async credits(userId: string, teamId: string) {
      await requireMembership(db, userId, teamId, 'lead');
      const [balance, rows] = [await teamCreditsRepository.balance(db, teamId), await teamCreditsRepository.ledger(db, teamId, 50)];
      return {
        credits: balance ?? 0,
        ledger: rows.map((r) => ({ delta: r.delta, kind: r.kind, reason: r.reason, created_at: r.createdAt.toISOString() })),
      };
    },

    async updateSettings(userId: string, teamId: string, patch: { name?: string; domain?: string | null }): Promise<TeamView> {
      await requireMembership(db, userId, teamId, 'owner');
      const team = await repo.updateTeam(db, teamId, patch);
      return view(team, 'owner');
    },

    /**
     * The team look: a catalogue pack (its prompts, in the team's frame) or the team's own pack (its prompts with
     * the backdrop, clothing and framing), kept as the team's hidden pack; plus the aspect ratio and due date.
     */
    async setLook(userId: string, teamId: string, look: TeamLook): Promise<TeamView> {
      await requireMembership(db, userId, teamId, 'owner');
      const team = await db.transaction(async (tx) => {
        let prompts: string[];
        let name: string;
        let description: string;
        if (look.pack_id) {
          const pack = await shootsRepository.findPack(tx, look.pack_id);
          if (!pack || pack.hidden || pack.source === 'team') throw badRequest('pack_id: is not a pack of the catalogue', 'invalid_input');
          prompts = pack.prompts;
          name = pack.name;
          description = pack.description;
        } else {
          const own = look.team_pack!;
          prompts = own.prompts.map((p) => `${p}, wearing ${own.clothing}, ${own.backdrop}, ${own.framing}`);
          name = own.name;
          description = `${own.clothing}; ${own.backdrop}; ${own.framing}`.slice(0, 200);
        }
        const aspect = look.aspect_ratio as PackAspect;
        await shootsRepository.upsertPack(
          tx,
          {
            id: teamPackId(teamId),
            name,
            description,
            category: 'Team',
            aspectRatio: aspect,
            ...PACK_ASPECTS[aspect],
            source: 'team',
            hidden: true,
          },
          prompts,
        );
        return repo.updateTeam(tx, teamId, {
          packId: teamPackId(teamId),
          teamPack: look.pack_id ? { from: 'catalogue', pack_id: look.pack_id } : { from: 'team', ...look.team_pack },
          aspectRatio: look.aspect_ratio,
          dueDate: look.due_date,
        });
      });
      return view(team, 'owner');
    },

    /** The owner makes a member a manager or back. The owner's own role does not change here. */
    async setRole(userId: string, teamId: string, memberId: string, role: 'manager' | 'member'): Promise<void> {
      await requireMembership(db, userId, teamId, 'owner');
      const target = isUuid(memberId) ? await repo.membership(db, teamId, memberId) : undefined;
      if (!target) throw noSuchMember();
      if (target.role === 'owner') throw conflict('The owner’s role cannot be changed.', 'team_owner_role');
      await repo.setRole(db, teamId, memberId, role);
    },

    /** The lead's dashboard: every member with their status (filtered when `status` is given). */
    async members(userId: string, teamId: string, filter?: { status?: string }): Promise<TeamMemberView[]> {
      await requireMembership(db, userId, teamId, 'lead');
      const rows = await repo.dashboard(db, teamId);
      const views = rows.map((r): TeamMemberView => ({
        submission_urls: r.submissionUrls,
        user_id: r.userId,
        role: r.role,
        name: r.name,
        title: r.title,
        email: r.email,
        status: memberStatus(r),
        submission: r.submission ?? [],
        last_reminded_at: r.lastRemindedAt?.toISOString() ?? null,
      }));
      // People invited by a personal link who have not joined yet: 'invited' (re-send or revoke them from the invites).
      for (const i of await teamInvitesRepository.openPersonal(db, teamId))
        views.push({
          user_id: `invite:${i.id}`,
          role: 'member',
          name: i.name,
          title: i.title,
          email: i.email,
          status: 'invited',
          submission: [],
          submission_urls: [],
          last_reminded_at: null,
        });
      return filter?.status ? views.filter((v) => v.status === filter.status) : views;
    },

    /** The member's own status in the team (what their page shows). */
    async myStatus(userId: string, teamId: string): Promise<TeamMemberWork> {
      await requireMembership(db, userId, teamId, 'member');
      const [r] = await repo.dashboard(db, teamId, userId);
      const work = await repo.memberWork(db, teamId, userId);
      const picks = new Map(work.photos.map((p) => [p.id, p.imageUrl]));
      return {
        characters: work.characters,
        photos: work.photos.map((p) => ({ id: p.id, image_url: p.imageUrl })),
        running_shoot_id: work.runningShootId,
        submission_urls: (r.submission ?? []).map((id) => picks.get(id)).filter((u): u is string => Boolean(u)),
        user_id: r.userId,
        role: r.role,
        name: r.name,
        title: r.title,
        email: r.email,
        status: memberStatus(r),
        submission: r.submission ?? [],
        last_reminded_at: null,
      };
    },

    /**
     * 'Remind': mails every member not done, and re-sends their invite to everyone invited who never joined (a new
     * link for another 7 days, as 'Re-send' does: only the token's hash is kept) — each person at most once in
     * REMIND_HOURS (a member by their last reminder, an invite by when it was last mailed). Answers how many.
     */
    async remind(userId: string, teamId: string): Promise<{ reminded: number }> {
      await requireMembership(db, userId, teamId, 'lead');
      const team = (await repo.findTeam(db, teamId))!;
      const due = (await repo.dashboard(db, teamId)).filter((r) => NOT_DONE.includes(memberStatus(r)) && r.userId !== userId && r.email);
      const invited = await teamInvitesRepository.openPersonal(db, teamId);
      const reminded = await db.transaction(async (tx) => {
        const marked = new Set(
          await repo.markReminded(
            tx,
            teamId,
            due.map((r) => r.userId),
            REMIND_HOURS,
          ),
        );
        for (const r of due.filter((d) => marked.has(d.userId))) {
          await enqueueTeamMail(tx, r.email!, 'team-reminder', { teamId, team: team.name, dueDate: team.dueDate }, { userId: r.userId });
        }
        const tokens = new Map(invited.filter((i) => i.email).map((i) => [i.id, newToken()]));
        const renewed = await teamInvitesRepository.renewForReminder(
          tx,
          teamId,
          new Map([...tokens].map(([id, token]) => [id, tokenHash(token)])),
          new Date(Date.now() + INVITE_DAYS * DAY_MS),
          REMIND_HOURS,
        );
        for (const i of renewed)
          await enqueueTeamMail(tx, i.email, 'team-invite', { token: tokens.get(i.id)!, team: team.name, dueDate: team.dueDate });
        return marked.size + renewed.length;
      });
      return { reminded };
    },

    /** 'Submit to team': up to 3 of the member's team-shoot photos; changeable until a lead approves. */
    async submit(userId: string, teamId: string, generationIds: string[]): Promise<TeamMemberWork> {
      await requireMembership(db, userId, teamId, 'member');
      const ids = [...new Set(generationIds)];
      await db.transaction(async (tx) => {
        const m = await repo.lockMembership(tx, teamId, userId);
        if (!m) throw noSuchMember();
        if (m.submissionStatus === 'approved')
          throw conflict('Your headshot has been approved; the pick cannot change any more.', 'team_pick_approved');
        if ((await repo.countTeamPhotos(tx, teamId, userId, ids)) !== ids.length)
          throw badRequest('Pick photos from your team photo shoot.', 'team_pick_invalid');
        await repo.setSubmission(tx, teamId, userId, { submission: ids, submissionStatus: 'submitted' });
        await tell(tx, teamId, userId);
      });
      return this.myStatus(userId, teamId);
    },

    /** Approve, or ask for another pick (the member picks again). */
    async review(userId: string, teamId: string, memberId: string, verdict: 'approved' | 'ask_again'): Promise<void> {
      await requireMembership(db, userId, teamId, 'lead');
      if (!isUuid(memberId)) throw noSuchMember();
      await db.transaction(async (tx) => {
        const m = await repo.lockMembership(tx, teamId, memberId);
        if (!m) throw noSuchMember();
        if (m.submissionStatus !== 'submitted' && m.submissionStatus !== 'approved')
          throw conflict('This person has not submitted a pick yet.', 'team_nothing_submitted');
        await repo.setSubmission(tx, teamId, memberId, { submissionStatus: verdict });
        await tell(tx, teamId, memberId);
      });
    },

    /**
     * Removing a member (a lead) or leaving (the member): their team work is cancelled and refunded to the team
     * once (the refunds are keyed on the work), their team characters, shoots and photos erased, their membership
     * and pending invites gone — in one transaction. Their personal space is not touched.
     */
    async remove(userId: string, teamId: string, memberId: string): Promise<{ refunded: number }> {
      const me = await requireMembership(db, userId, teamId, memberId === userId ? 'member' : 'lead');
      if (!isUuid(memberId)) throw noSuchMember();
      const outcome = await db.transaction(async (tx) => {
        const target = await repo.lockMembership(tx, teamId, memberId);
        if (!target) throw noSuchMember();
        if (target.role === 'owner') throw conflict('The owner cannot leave or be removed from the team.', 'team_owner_stays');
        if (target.role === 'manager' && me.role !== 'owner' && memberId !== userId) throw ownerOnly();
        const before = (await teamCreditsRepository.balance(tx, teamId)) ?? 0;
        const { trainings, shoots } = await repo.teamWork(tx, teamId, memberId);
        for (const t of trainings) {
          const cancelled = t.status === 'IN_PROGRESS';
          if (cancelled) await finishTrainingIn(tx, deps, t.id, { status: 'FAILED', error: REMOVED_FROM_TEAM }, { cancelledByOwner: true });
          await trainingsRepository.markDeleted(tx, (await trainingsRepository.findOwned(tx, memberId, t.id))!, cancelled);
        }
        for (const s of shoots.filter((s) => s.status === 'RUNNING')) {
          const cancelled = await shootsRepository.cancelUnstarted(tx, s.id);
          if (cancelled.length)
            await refundWork(
              tx,
              deps,
              { userId: memberId, teamId },
              cancelled.length * (s.cost / s.photoCount),
              'Refund: team member removed',
              cancelKey(s.id),
            );
        }
        await repo.eraseShoots(
          tx,
          shoots.map((s) => s.id),
        );
        await repo.deleteMember(tx, teamId, memberId);
        if (target.email) await teamInvitesRepository.revokePending(tx, teamId, [target.email]);
        await tell(tx, teamId, memberId);
        return { refunded: ((await teamCreditsRepository.balance(tx, teamId)) ?? 0) - before };
      });
      deps.logger.info({ userId, teamId, memberId, refunded: outcome.refunded }, 'removed a team member');
      return outcome;
    },
  };
}
