import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { generations, loraTrainings, photoPackPrompts, photoPacks, photoShoots, shootPhotos } from '../db/schema.ts';
import { claimDue, leaseIsFree, type LeaseClaim } from './job-leases.ts';
import { rowOf } from './raw-rows.ts';

export type PackRow = typeof photoPacks.$inferSelect;
export type NewPackRow = typeof photoPacks.$inferInsert;
export type ShootRow = typeof photoShoots.$inferSelect;
export type ShootPhotoRow = typeof shootPhotos.$inferSelect;
export type NewShootPhotoRow = typeof shootPhotos.$inferInsert;
export type PackWithPrompts = PackRow & { prompts: string[] };

const UNFINISHED = ['QUEUED', 'RUNNING'] as const;

/** Drizzle queries of photo packs, shoots and their photos. */
export const shootsRepository = {
  // ── packs ──
  async listPacks(db: Executor, opts: { includeHidden: boolean }): Promise<PackWithPrompts[]> {
    const packs = await db
      .select()
      .from(photoPacks)
      .where(opts.includeHidden ? undefined : eq(photoPacks.hidden, false))
      .orderBy(asc(photoPacks.position), asc(photoPacks.id));
    if (packs.length === 0) return [];
    const prompts = await db
      .select()
      .from(photoPackPrompts)
      .where(
        inArray(
          photoPackPrompts.packId,
          packs.map((p) => p.id),
        ),
      )
      .orderBy(asc(photoPackPrompts.packId), asc(photoPackPrompts.position));
    const byPack = new Map<string, string[]>();
    for (const p of prompts) byPack.set(p.packId, [...(byPack.get(p.packId) ?? []), p.template]);
    return packs.map((p) => ({ ...p, prompts: byPack.get(p.id) ?? [] }));
  },

  async findPack(db: Executor, id: string): Promise<PackWithPrompts | undefined> {
    const [pack] = await db.select().from(photoPacks).where(eq(photoPacks.id, id)).limit(1);
    if (!pack) return undefined;
    const prompts = await db.select().from(photoPackPrompts).where(eq(photoPackPrompts.packId, id)).orderBy(asc(photoPackPrompts.position));
    return { ...pack, prompts: prompts.map((p) => p.template) };
  },

  /** Writes a pack and replaces its prompts (shoots keep their own filled prompts, so nothing running changes). */
  async upsertPack(db: Executor, pack: NewPackRow, prompts: string[]): Promise<void> {
    const { id: _id, createdAt: _c, coverUrl: _cover, sampleUrls: _samples, ...changes } = pack;
    await db
      .insert(photoPacks)
      .values(pack)
      .onConflictDoUpdate({ target: photoPacks.id, set: { ...changes, updatedAt: sql`now()` } });
    await db.delete(photoPackPrompts).where(eq(photoPackPrompts.packId, pack.id));
    if (prompts.length)
      await db.insert(photoPackPrompts).values(prompts.map((template, position) => ({ packId: pack.id, position, template })));
  },

  async setHidden(db: Executor, id: string, hidden: boolean): Promise<boolean> {
    const rows = await db
      .update(photoPacks)
      .set({ hidden, updatedAt: sql`now()` })
      .where(eq(photoPacks.id, id))
      .returning({ id: photoPacks.id });
    return rows.length === 1;
  },

  /** Hides the catalogue's packs that are not in `keep` (a new catalogue version dropped them). */
  async hideCataloguePacksExcept(db: Executor, keep: string[]): Promise<string[]> {
    const rows = await db
      .update(photoPacks)
      .set({ hidden: true, updatedAt: sql`now()` })
      .where(
        and(
          eq(photoPacks.source, 'catalogue'),
          eq(photoPacks.hidden, false),
          keep.length
            ? sql`${photoPacks.id} not in (${sql.join(
                keep.map((k) => sql`${k}`),
                sql`, `,
              )})`
            : undefined,
        ),
      )
      .returning({ id: photoPacks.id });
    return rows.map((r) => r.id);
  },

  async setCovers(db: Executor, id: string, sampleUrls: string[]): Promise<void> {
    await db
      .update(photoPacks)
      .set({ coverUrl: sampleUrls[0] ?? null, sampleUrls, updatedAt: sql`now()` })
      .where(eq(photoPacks.id, id));
  },

  async lowestCatalogueVersion(db: Executor): Promise<number | null> {
    const [row] = await db
      .select({ v: sql<number | null>`min(${photoPacks.catalogueVersion})` })
      .from(photoPacks)
      .where(eq(photoPacks.source, 'catalogue'));
    return row?.v ?? null;
  },

  // ── characters ──
  async findCharacter(db: Executor, id: string) {
    const [row] = await db.select().from(loraTrainings).where(eq(loraTrainings.id, id)).limit(1);
    return row;
  },

  // ── shoots ──
  /**
   * The shoot, its photos and `notification` (the shoot event's NOTIFY, sent from the inserted row; none when
   * absent) in one statement: one round trip however many photos (docs/decisions/014-generate-path.md).
   */
  async insertShoot(
    db: Executor,
    shoot: typeof photoShoots.$inferInsert,
    photos: NewShootPhotoRow[],
    notification?: SQL,
  ): Promise<ShootRow> {
    const result = await db.execute<Record<string, unknown>>(sql`
      with shoot as (${db.insert(photoShoots).values(shoot).returning().getSQL()}),
      photos as (${db.insert(shootPhotos).values(photos).getSQL()}),
      told as (select ${notification ?? sql`null`} from shoot where ${notification ? sql`true` : sql`false`})
      select shoot.*, (select count(*) from told) as told from shoot`);
    const [raw] = (result as unknown as { rows: Record<string, unknown>[] }).rows;
    return rowOf<ShootRow>(getTableColumns(photoShoots), raw);
  },

  /**
   * The shoot a repeated start answers: the user's shoot of this `requestId`, or without one, the user's RUNNING
   * shoot of the same pack and character started within `withinSeconds`.
   */
  async findRepeatedStart(
    db: Executor,
    start: { userId: string; requestId?: string; packId: string; loraId: string; withinSeconds: number },
  ): Promise<ShootRow | undefined> {
    const { userId, packId, loraId, withinSeconds } = start;
    const [same] = await db
      .select()
      .from(photoShoots)
      .where(
        start.requestId
          ? and(eq(photoShoots.userId, userId), eq(photoShoots.requestId, start.requestId))
          : sql`${photoShoots.userId} = ${userId} and ${photoShoots.packId} = ${packId} and ${photoShoots.loraId} = ${loraId}
              and ${photoShoots.status} = 'RUNNING' and ${photoShoots.createdAt} > now() - make_interval(secs => ${withinSeconds})`,
      )
      .limit(1);
    return same;
  },

  async findShoot(db: Executor, id: string): Promise<ShootRow | undefined> {
    const [row] = await db.select().from(photoShoots).where(eq(photoShoots.id, id)).limit(1);
    return row;
  },

  async lockShoot(db: Executor, id: string): Promise<ShootRow | undefined> {
    const [row] = await db.select().from(photoShoots).where(eq(photoShoots.id, id)).for('update');
    return row;
  },

  /** A shoot's photo rows in catalogue order (the page reads them from shoot_photo_views: shoot-views.repository.ts). */
  async listPhotos(db: Executor, shootId: string): Promise<ShootPhotoRow[]> {
    return db.select().from(shootPhotos).where(eq(shootPhotos.shootId, shootId)).orderBy(asc(shootPhotos.position));
  },

  /** The user's shoots, newest first, with counts of photos ready (landed and not deleted since) and failed. */
  /** The caller's shoots in one space (issue 49): team `teamId`'s, or personal ones when null. */
  async listShoots(db: Executor, userId: string, opts: { running?: boolean; limit: number; teamId: string | null }) {
    return db
      .select({
        shoot: photoShoots,
        // Spelled out: Drizzle leaves columns unqualified in a one-table select, and a bare "id" in the
        // subquery would be the photo's own id (every count 0).
        ready: sql<number>`(select count(*)::int from ${shootPhotos} sp join ${generations} g on g.id = sp.generation_id
          where sp.shoot_id = ${photoShoots}.id and sp.status = 'SUCCEEDED' and g.status = 'ACTIVE')`,
        failed: sql<number>`(select count(*)::int from ${shootPhotos} sp where sp.shoot_id = ${photoShoots}.id and sp.status = 'FAILED')`,
      })
      .from(photoShoots)
      .where(
        and(
          eq(photoShoots.userId, userId),
          opts.running ? eq(photoShoots.status, 'RUNNING') : undefined,
          opts.teamId ? eq(photoShoots.teamId, opts.teamId) : isNull(photoShoots.teamId),
        ),
      )
      .orderBy(desc(photoShoots.createdAt), desc(photoShoots.id))
      .limit(opts.limit);
  },

  /** Counts by status of a shoot's photos. */
  async photoCounts(db: Executor, shootId: string): Promise<Record<ShootPhotoRow['status'], number>> {
    const rows = await db
      .select({ status: shootPhotos.status, n: count() })
      .from(shootPhotos)
      .where(eq(shootPhotos.shootId, shootId))
      .groupBy(shootPhotos.status);
    const counts = { QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
    for (const r of rows) counts[r.status] = Number(r.n);
    return counts;
  },

  async endShoot(db: Executor, id: string, status: 'COMPLETED' | 'FAILED' | 'CANCELLED'): Promise<ShootRow | undefined> {
    const [row] = await db
      .update(photoShoots)
      .set({ status, finishedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(photoShoots.id, id), eq(photoShoots.status, 'RUNNING')))
      .returning();
    return row;
  },

  async touchShoot(db: Executor, id: string): Promise<void> {
    await db
      .update(photoShoots)
      .set({ updatedAt: sql`now()` })
      .where(eq(photoShoots.id, id));
  },

  // ── photos (jobs) ──
  /**
   * Claims up to `limit` photos to run: queued ones, and running ones whose lease ran out (their instance died
   * or gave them back). Position first, then shoot age, so every running shoot's first photos go before anyone's
   * later ones and shoots share the slots.
   */
  claimPhotos(db: Executor, lease: LeaseClaim, limit: number): Promise<ShootPhotoRow[]> {
    return claimDue(db, 'shoot_photo', {
      where: inArray(shootPhotos.status, UNFINISHED),
      lease,
      limit,
      orderBy: [asc(shootPhotos.position), asc(shootPhotos.queuedAt), asc(shootPhotos.id)],
      // started_at says this attempt is rendering: a photo claimed again waits for its slot like a new one.
      set: { status: 'RUNNING', attempts: sql`${shootPhotos.attempts} + 1`, startedAt: null },
    });
  },

  /**
   * A claimed photo got its render slot: from now on a cancel lets it land. False when a cancel ended it while
   * it waited (it was refunded with the others not started; it must not be rendered).
   */
  async markStarted(db: Executor, id: string): Promise<boolean> {
    const rows = await db
      .update(shootPhotos)
      .set({ startedAt: sql`now()` })
      .where(and(eq(shootPhotos.id, id), eq(shootPhotos.status, 'RUNNING')))
      .returning({ id: shootPhotos.id });
    return rows.length === 1;
  },

  /** The image a photo shows: its saved generation's, once it has landed (null before, or if it failed or is gone). */
  async keptImageUrl(db: Executor, id: string): Promise<string | null> {
    const [row] = await db
      .select({ imageUrl: shootPhotos.imageUrl })
      .from(shootPhotos)
      .where(and(eq(shootPhotos.id, id), eq(shootPhotos.status, 'SUCCEEDED')));
    return row?.imageUrl ?? null;
  },

  /** Ends a running photo; false when it had already ended (so its outcome is applied once). */
  async finishPhoto(
    db: Executor,
    id: string,
    outcome: { status: 'SUCCEEDED'; generationId: string; imageUrl: string } | { status: 'FAILED'; error: string },
  ): Promise<ShootPhotoRow | undefined> {
    const [row] = await db
      .update(shootPhotos)
      .set({ ...outcome, finishedAt: sql`now()`, leaseExpiresAt: null })
      .where(and(eq(shootPhotos.id, id), inArray(shootPhotos.status, UNFINISHED)))
      .returning();
    return row;
  },

  /**
   * Cancels the photos of a shoot that are not rendering: queued, claimed by a runner but still waiting for a
   * render slot (no started_at: markStarted then refuses them), or abandoned by a dead instance. Only photos
   * already rendering land (docs/decisions/012-photo-shoots.md).
   */
  async cancelUnstarted(db: Executor, shootId: string): Promise<ShootPhotoRow[]> {
    return db
      .update(shootPhotos)
      .set({ status: 'CANCELLED', finishedAt: sql`now()`, leaseExpiresAt: null })
      .where(
        and(
          eq(shootPhotos.shootId, shootId),
          or(
            eq(shootPhotos.status, 'QUEUED'),
            and(eq(shootPhotos.status, 'RUNNING'), or(isNull(shootPhotos.startedAt), leaseIsFree(shootPhotos))),
          ),
        ),
      )
      .returning();
  },

  /** Gives a photo back to the queue at once (this instance is shutting down). */
  async requeue(db: Executor, id: string): Promise<void> {
    await db
      .update(shootPhotos)
      .set({ status: 'QUEUED', leaseExpiresAt: null })
      .where(and(eq(shootPhotos.id, id), eq(shootPhotos.status, 'RUNNING')));
  },

  /** Mean run time of the most recent finished photos on any shoot (ms), for a first estimate. */
  async recentPhotoMs(db: Executor): Promise<number | null> {
    const result = await db.execute<{ ms: number | null }>(sql`
      select avg(extract(epoch from (finished_at - started_at)) * 1000)::float8 as ms from (
        select finished_at, started_at from ${shootPhotos}
        where status = 'SUCCEEDED' and started_at is not null and finished_at is not null
        order by finished_at desc limit 50) recent`);
    const row = (result as unknown as { rows: { ms: number | null }[] }).rows[0];
    return row?.ms ?? null;
  },

  /** Generation rows of a shoot's landed photos, in catalogue order (the ZIP). */
  async archivePhotos(db: Executor, shootId: string) {
    return db
      .select({ position: shootPhotos.position, imageUrl: generations.imageUrl, outputFormat: generations.outputFormat })
      .from(shootPhotos)
      .innerJoin(generations, eq(generations.id, shootPhotos.generationId))
      .where(and(eq(shootPhotos.shootId, shootId), eq(shootPhotos.status, 'SUCCEEDED'), eq(generations.status, 'ACTIVE')))
      .orderBy(asc(shootPhotos.position));
  },
};
