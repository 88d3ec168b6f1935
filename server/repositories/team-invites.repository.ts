import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { teamInvites } from '../db/schema.ts';

export type TeamInviteRow = typeof teamInvites.$inferSelect;
export type NewTeamInviteRow = typeof teamInvites.$inferInsert;

/** Queries of team invites (server/services/team-invites.service.ts decides who may use them). */
export const teamInvitesRepository = {
  async insertMany(tx: Executor, rows: NewTeamInviteRow[]): Promise<TeamInviteRow[]> {
    if (rows.length === 0) return [];
    const out: TeamInviteRow[] = [];
    // In slices: one statement's parameters stay far below Postgres's 65,535 for a 10,000-row import.
    for (let i = 0; i < rows.length; i += 500)
      out.push(
        ...(await tx
          .insert(teamInvites)
          .values(rows.slice(i, i + 500))
          .returning()),
      );
    return out;
  },

  async findByHash(db: Executor, tokenHash: string, lock = false): Promise<TeamInviteRow | undefined> {
    const q = db.select().from(teamInvites).where(eq(teamInvites.tokenHash, tokenHash));
    const [row] = lock ? await q.for('update') : await q;
    return row;
  },

  async find(db: Executor, teamId: string, id: string, lock = false): Promise<TeamInviteRow | undefined> {
    const q = db
      .select()
      .from(teamInvites)
      .where(and(eq(teamInvites.teamId, teamId), eq(teamInvites.id, id)));
    const [row] = lock ? await q.for('update') : await q;
    return row;
  },

  /** Personal invites not used or revoked (expired ones too: they can be re-sent), and every open link. */
  list(db: Executor, teamId: string) {
    return db
      .select()
      .from(teamInvites)
      .where(and(eq(teamInvites.teamId, teamId), isNull(teamInvites.usedAt)))
      .orderBy(desc(teamInvites.createdAt), desc(teamInvites.id));
  },

  /**
   * Personal invites still open (not used, revoked or expired): the people the dashboard shows as 'invited',
   * newest first.
   */
  openPersonal(db: Executor, teamId: string) {
    const t = teamInvites;
    return db
      .select({ id: t.id, email: t.email, name: t.name, title: t.title, sentAt: t.sentAt })
      .from(t)
      .where(
        and(
          eq(t.teamId, teamId),
          eq(t.kind, 'personal'),
          isNull(t.usedAt),
          isNull(t.revokedAt),
          or(isNull(t.expiresAt), gt(t.expiresAt, sql`now()`)),
        ),
      )
      .orderBy(desc(t.createdAt), desc(t.id));
  },

  /**
   * 'Remind' for people invited who never joined: each of these open personal invites (`tokens`: invite id → the
   * new token's hash) not mailed in the last `hours` gets its new link and expiry, in one statement, so two clicks
   * or two leads never re-send anyone's invite twice in a day. Answers the invites changed, with their address.
   */
  async renewForReminder(tx: Executor, teamId: string, tokens: Map<string, string>, expiresAt: Date, hours: number) {
    if (tokens.size === 0) return [];
    const t = teamInvites;
    const ids = [...tokens.keys()];
    const hashes = ids.map((id) => tokens.get(id)!);
    const result = await tx.execute<{ id: string; email: string }>(sql`
      update ${t} set token_hash = v.hash, expires_at = ${expiresAt.toISOString()}::timestamptz, sent_at = now()
      from unnest(${`{${ids.join(',')}}`}::uuid[], ${`{${hashes.join(',')}}`}::text[]) as v(id, hash)
      where ${t.id} = v.id and ${t.teamId} = ${teamId}::uuid and ${t.kind} = 'personal' and ${t.email} is not null
        and ${t.usedAt} is null and ${t.revokedAt} is null and (${t.expiresAt} is null or ${t.expiresAt} > now())
        and (${t.sentAt} is null or ${t.sentAt} < now() - make_interval(hours => ${hours}))
      returning ${t.id} as id, ${t.email} as email`);
    return (result as unknown as { rows: { id: string; email: string }[] }).rows.map((r) => ({ id: String(r.id), email: r.email }));
  },

  /** Addresses with a pending personal invite, lower-cased. */
  async pendingEmails(db: Executor, teamId: string): Promise<Set<string>> {
    const rows = await db
      .select({ email: teamInvites.email })
      .from(teamInvites)
      .where(
        and(eq(teamInvites.teamId, teamId), eq(teamInvites.kind, 'personal'), isNull(teamInvites.usedAt), isNull(teamInvites.revokedAt)),
      );
    return new Set(rows.map((r) => r.email).filter((e): e is string => Boolean(e)));
  },

  async update(
    tx: Executor,
    id: string,
    patch: Partial<Pick<TeamInviteRow, 'tokenHash' | 'expiresAt' | 'revokedAt' | 'usedAt' | 'usedBy' | 'sentAt'>>,
  ) {
    const [row] = await tx.update(teamInvites).set(patch).where(eq(teamInvites.id, id)).returning();
    return row;
  },

  async countUse(tx: Executor, id: string): Promise<void> {
    await tx
      .update(teamInvites)
      .set({ useCount: sql`${teamInvites.useCount} + 1` })
      .where(eq(teamInvites.id, id));
  },

  /** Withdraws the pending personal invites of these addresses (a removed member's, say). */
  async revokePending(tx: Executor, teamId: string, emails: string[]): Promise<void> {
    if (emails.length === 0) return;
    await tx
      .update(teamInvites)
      .set({ revokedAt: new Date() })
      .where(
        and(eq(teamInvites.teamId, teamId), inArray(teamInvites.email, emails), isNull(teamInvites.usedAt), isNull(teamInvites.revokedAt)),
      );
  },
};
