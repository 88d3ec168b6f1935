import { and, asc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { generations, loraTrainings, photoShoots, shootPhotos, teamMembers, teams, users } from '../db/schema.ts';
import { preparedStatement } from './prepared.ts';

export type TeamRow = typeof teams.$inferSelect;
export type TeamMemberRow = typeof teamMembers.$inferSelect;
export type TeamRole = TeamMemberRow['role'];

/** One row of the lead's dashboard: the member and where their team work stands. */
export interface DashboardRow {
  userId: string;
  role: TeamRole;
  name: string | null;
  title: string | null;
  email: string | null;
  joinedAt: Date;
  submissionStatus: TeamMemberRow['submissionStatus'];
  submission: string[] | null;
  /** The images of a submitted or approved pick, in the member's order (empty otherwise). */
  submissionUrls: string[];
  lastRemindedAt: Date | null;
  training: string | null;
  shoot: string | null;
}

/**
 * The lead's dashboard (`oneMember`: only the member `userId`): each member with the status of their newest team
 * training and team shoot. Each is one step down lora_trainings_team_user_idx / photo_shoots_team_user_idx
 * (team, person, created_at): the newest row comes first, with nothing to sort, whatever the planner knows of the
 * tables (migration 0028).
 */
function dashboardStatement(oneMember: boolean) {
  const p = sql.placeholder;
  return sql`
    select m.user_id, m.role, m.name, m.title, coalesce(m.email, u.verified_email, u.email) as email, m.joined_at,
           m.submission_status, m.submission, m.last_reminded_at,
           (select t.status from ${loraTrainings} t
             where t.team_id = m.team_id and t.user_id = m.user_id and t.deleted_at is null
             order by t.created_at desc limit 1) as training,
           (select s.status from ${photoShoots} s
             where s.team_id = m.team_id and s.user_id = m.user_id
             order by s.created_at desc limit 1) as shoot
    from ${teamMembers} m join ${users} u on u.id = m.user_id
    where m.team_id = ${p('teamId')}::uuid ${oneMember ? sql`and m.user_id = ${p('userId')}::uuid` : sql``}
    order by lower(coalesce(m.name, m.email, u.email, '')), m.user_id`;
}
const teamDashboardStatement = preparedStatement('likeness_team_dashboard', () => dashboardStatement(false));
const memberDashboardStatement = preparedStatement('likeness_team_member_dashboard', () => dashboardStatement(true));
/** The images of the generations `ids` that are ACTIVE (a dashboard's submitted picks), by primary key. */
const pickImagesStatement = preparedStatement(
  'likeness_team_pick_images',
  () => sql`select g.id, g.user_id, g.image_url from ${generations} g
    where g.id = any(${sql.placeholder('ids')}::uuid[]) and g.status = 'ACTIVE'`,
);

/** Queries of teams and their members (server/services/teams.service.ts decides what they may do). */
export const teamsRepository = {
  async insertTeam(tx: Executor, row: { name: string; ownerId: string }): Promise<TeamRow> {
    const [team] = await tx.insert(teams).values(row).returning();
    return team;
  },

  /** The name a person gave their account (the default name of their membership). */
  async personName(db: Executor, userId: string): Promise<string | null> {
    const [row] = await db.select({ name: users.fullName }).from(users).where(eq(users.id, userId));
    return row?.name ?? null;
  },

  async findTeam(db: Executor, teamId: string): Promise<TeamRow | undefined> {
    const [row] = await db.select().from(teams).where(eq(teams.id, teamId));
    return row;
  },

  async updateTeam(
    tx: Executor,
    teamId: string,
    patch: Partial<Pick<TeamRow, 'name' | 'domain' | 'packId' | 'teamPack' | 'aspectRatio' | 'dueDate'>>,
  ) {
    const [row] = await tx
      .update(teams)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(teams.id, teamId))
      .returning();
    return row;
  },

  /** Adds a member; false when they were in the team already (nothing changes then). */
  async insertMember(
    tx: Executor,
    row: { teamId: string; userId: string; role: TeamRole; name: string | null; title: string | null; email: string | null },
  ): Promise<boolean> {
    const inserted = await tx.insert(teamMembers).values(row).onConflictDoNothing().returning({ userId: teamMembers.userId });
    return inserted.length > 0;
  },

  async membership(db: Executor, teamId: string, userId: string): Promise<TeamMemberRow | undefined> {
    const [row] = await db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    return row;
  },

  /** The member's row locked for the rest of the transaction (submissions and approvals take it). */
  async lockMembership(tx: Executor, teamId: string, userId: string): Promise<TeamMemberRow | undefined> {
    const [row] = await tx
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .for('update');
    return row;
  },

  /** The teams a person belongs to, with their role, oldest first. */
  listForUser(db: Executor, userId: string) {
    return db
      .select({ team: teams, role: teamMembers.role })
      .from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(eq(teamMembers.userId, userId))
      .orderBy(asc(teamMembers.joinedAt), asc(teams.id));
  },

  async leadIds(db: Executor, teamId: string): Promise<string[]> {
    const rows = await db
      .select({ userId: teamMembers.userId })
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), inArray(teamMembers.role, ['owner', 'manager'])));
    return rows.map((r) => r.userId);
  },

  /** The addresses of the team's members, lower-cased (the CSV import's 'Already in the team'). */
  async memberEmails(db: Executor, teamId: string): Promise<Set<string>> {
    const rows = await db
      .select({ email: sql<string | null>`lower(coalesce(${teamMembers.email}, ${users.verifiedEmail}, ${users.email}))` })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .where(eq(teamMembers.teamId, teamId));
    return new Set(rows.map((r) => r.email).filter((e): e is string => Boolean(e)));
  },

  async setRole(tx: Executor, teamId: string, userId: string, role: TeamRole): Promise<boolean> {
    const rows = await tx
      .update(teamMembers)
      .set({ role })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning({ userId: teamMembers.userId });
    return rows.length > 0;
  },

  async deleteMember(tx: Executor, teamId: string, userId: string): Promise<boolean> {
    const rows = await tx
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning({ userId: teamMembers.userId });
    return rows.length > 0;
  },

  async setSubmission(
    tx: Executor,
    teamId: string,
    userId: string,
    patch: { submission?: string[] | null; submissionStatus: TeamMemberRow['submissionStatus'] },
  ): Promise<TeamMemberRow | undefined> {
    const [row] = await tx
      .update(teamMembers)
      .set({ ...patch, ...(patch.submission ? { submittedAt: new Date() } : {}) })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
      .returning();
    return row;
  },

  /**
   * Marks as reminded those of `userIds` not reminded in the last `hours` (one statement, so two clicks or two
   * leads never remind anyone twice); answers who was marked.
   */
  async markReminded(tx: Executor, teamId: string, userIds: string[], hours: number): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows = await tx
      .update(teamMembers)
      .set({ lastRemindedAt: sql`now()` })
      .where(
        and(
          eq(teamMembers.teamId, teamId),
          inArray(teamMembers.userId, userIds),
          or(isNull(teamMembers.lastRemindedAt), lt(teamMembers.lastRemindedAt, sql`now() - make_interval(hours => ${hours})`)),
        ),
      )
      .returning({ userId: teamMembers.userId });
    return rows.map((r) => r.userId);
  },

  /**
   * Every member (or only `onlyUserId`) with the status of their newest team training and team shoot and the
   * images of their submitted pick: two prepared statements for the whole team, however large (the images by
   * the generations' primary key, all at once), instead of statements per member
   * (docs/decisions/029-team-dashboard-and-team-packs.md).
   */
  async dashboard(db: Executor, teamId: string, onlyUserId?: string): Promise<DashboardRow[]> {
    const rows = onlyUserId
      ? await memberDashboardStatement<Record<string, unknown>>(db, { teamId, userId: onlyUserId })
      : await teamDashboardStatement<Record<string, unknown>>(db, { teamId });
    const members = rows.map((r) => ({
      userId: String(r.user_id),
      role: r.role as TeamRole,
      name: (r.name as string | null) ?? null,
      title: (r.title as string | null) ?? null,
      email: (r.email as string | null) ?? null,
      joinedAt: new Date(r.joined_at as string),
      submissionStatus: (r.submission_status as TeamMemberRow['submissionStatus']) ?? null,
      submission: (r.submission as string[] | null) ?? null,
      lastRemindedAt: r.last_reminded_at ? new Date(r.last_reminded_at as string) : null,
      training: (r.training as string | null) ?? null,
      shoot: (r.shoot as string | null) ?? null,
    }));
    const submitted = (m: (typeof members)[number]) => m.submissionStatus === 'submitted' || m.submissionStatus === 'approved';
    const ids = members.filter(submitted).flatMap((m) => m.submission ?? []);
    const images = new Map<string, { userId: string; imageUrl: string }>();
    if (ids.length > 0)
      for (const g of await pickImagesStatement<{ id: string; user_id: string; image_url: string }>(db, { ids: `{${ids.join(',')}}` }))
        images.set(g.id, { userId: g.user_id, imageUrl: g.image_url });
    return members.map((m) => ({
      ...m,
      // A pick's own ACTIVE photos only, in the member's order (a deleted one drops out).
      submissionUrls: submitted(m)
        ? (m.submission ?? []).flatMap((id) => {
            const image = images.get(id);
            return image && image.userId === m.userId ? [image.imageUrl] : [];
          })
        : [],
    }));
  },

  /** How many of `ids` are ACTIVE generations of the member made in this team's shoots. */
  async countTeamPhotos(db: Executor, teamId: string, userId: string, ids: string[]): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(generations)
      .innerJoin(photoShoots, eq(photoShoots.id, generations.shootId))
      .where(
        and(
          inArray(generations.id, ids),
          eq(generations.userId, userId),
          eq(generations.status, 'ACTIVE'),
          eq(photoShoots.teamId, teamId),
          eq(photoShoots.userId, userId),
        ),
      );
    return Number(row?.n ?? 0);
  },

  /** Image of each submitted pick (for the grid and the ZIP), in the member's order. */
  async submittedPhotos(db: Executor, teamId: string, userIds?: string[]) {
    const result = await db.execute<Record<string, unknown>>(sql`
      select m.user_id, p.ord, g.id, g.image_url, g.output_format
      from ${teamMembers} m
      cross join lateral unnest(m.submission) with ordinality as p(generation_id, ord)
      join ${generations} g on g.id = p.generation_id and g.user_id = m.user_id and g.status = 'ACTIVE'
      where m.team_id = ${teamId}::uuid and m.submission_status in ('submitted', 'approved')
        ${
          userIds
            ? sql`and m.user_id in (${sql.join(
                userIds.map((id) => sql`${id}::uuid`),
                sql`, `,
              )})`
            : sql``
        }
      order by m.user_id, p.ord`);
    return (result as unknown as { rows: Record<string, unknown>[] }).rows.map((r) => ({
      userId: String(r.user_id),
      generationId: String(r.id),
      imageUrl: String(r.image_url),
      outputFormat: String(r.output_format),
    }));
  },

  /** The member's team trainings and shoots (what removing them erases), locked. */
  async teamWork(tx: Executor, teamId: string, userId: string) {
    const trainings = await tx
      .select()
      .from(loraTrainings)
      .where(and(eq(loraTrainings.teamId, teamId), eq(loraTrainings.userId, userId)))
      .for('update');
    const shoots = await tx
      .select()
      .from(photoShoots)
      .where(and(eq(photoShoots.teamId, teamId), eq(photoShoots.userId, userId)))
      .for('update');
    return { trainings, shoots };
  },

  /** Marks the generations of these shoots deleted (the purge removes their files) and deletes the shoots. */
  async eraseShoots(tx: Executor, shootIds: string[]): Promise<number> {
    if (shootIds.length === 0) return 0;
    const erased = await tx
      .update(generations)
      .set({ status: 'DELETED', deletedAt: new Date(), isFavorite: false })
      .where(and(inArray(generations.shootId, shootIds), eq(generations.status, 'ACTIVE')))
      .returning({ id: generations.id });
    await tx.delete(shootPhotos).where(inArray(shootPhotos.shootId, shootIds));
    await tx.delete(photoShoots).where(inArray(photoShoots.id, shootIds));
    return erased.length;
  },

  /** The member's team characters and the photos of their team shoots (their page's steps), newest first. */
  async memberWork(db: Executor, teamId: string, userId: string) {
    const characters = await db
      .select({ id: loraTrainings.id, name: loraTrainings.characterName, status: loraTrainings.status })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.teamId, teamId), eq(loraTrainings.userId, userId), isNull(loraTrainings.deletedAt)))
      .orderBy(sql`${loraTrainings.createdAt} desc`);
    const photos = await db
      .select({ id: generations.id, imageUrl: generations.imageUrl, shootId: generations.shootId })
      .from(generations)
      .innerJoin(photoShoots, eq(photoShoots.id, generations.shootId))
      .where(and(eq(photoShoots.teamId, teamId), eq(photoShoots.userId, userId), eq(generations.status, 'ACTIVE')))
      .orderBy(sql`${generations.createdAt} desc`)
      .limit(200);
    const [running] = await db
      .select({ id: photoShoots.id })
      .from(photoShoots)
      .where(and(eq(photoShoots.teamId, teamId), eq(photoShoots.userId, userId), eq(photoShoots.status, 'RUNNING')))
      .limit(1);
    return { characters, photos, runningShootId: running?.id ?? null };
  },

  /** Is this character one of the member's team characters of this team (usable)? */
  async teamCharacter(db: Executor, teamId: string, userId: string, loraId: string) {
    const [row] = await db
      .select({ id: loraTrainings.id })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.id, loraId), eq(loraTrainings.teamId, teamId), eq(loraTrainings.userId, userId)));
    return row;
  },
};
