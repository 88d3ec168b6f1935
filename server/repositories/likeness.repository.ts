import { and, eq, isNull, sql } from 'drizzle-orm';
import type { LikenessScore } from '@common/likeness.ts';
import { LIKENESS } from '@common/likeness.ts';
import type { Executor } from '../db/index.ts';
import { generations, loraTrainings, photoShoots, shootPhotos } from '../db/schema.ts';

/** How long a claimed check holds its generation before another pass (any instance) may try it again. */
const CHECK_HOLD_SECONDS = 60;

/** A generation claimed for its likeness check. */
export type LikenessDue = { id: string; lora_id: string; user_id: string; image_url: string };

/** Drizzle queries of the likeness check (docs/decisions/017-likeness-check.md). */
export const likenessRepository = {
  /** The character's reference face and whether it was worked out yet. */
  async findReference(db: Executor, trainingId: string) {
    const [row] = await db
      .select({
        id: loraTrainings.id,
        userId: loraTrainings.userId,
        status: loraTrainings.status,
        deletedAt: loraTrainings.deletedAt,
        uploadUrl: loraTrainings.uploadUrl,
        referenceFace: loraTrainings.referenceFace,
        referenceCheckedAt: loraTrainings.referenceCheckedAt,
      })
      .from(loraTrainings)
      .where(eq(loraTrainings.id, trainingId))
      .limit(1);
    return row;
  },

  /** Characters (new or trained before the check) whose reference was never worked out. */
  async charactersWithoutReference(db: Executor, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: loraTrainings.id })
      .from(loraTrainings)
      .where(and(isNull(loraTrainings.referenceCheckedAt), isNull(loraTrainings.deletedAt), sql`${loraTrainings.status} <> 'FAILED'`))
      .orderBy(loraTrainings.createdAt)
      .limit(limit);
    return rows.map((r) => r.id);
  },

  /** Keeps the reference (or its absence) unless the character was deleted meanwhile. */
  async saveReference(db: Executor, trainingId: string, reference: number[] | null): Promise<void> {
    await db
      .update(loraTrainings)
      .set({ referenceFace: reference, referenceCheckedAt: sql`now()` })
      .where(and(eq(loraTrainings.id, trainingId), isNull(loraTrainings.deletedAt)));
  },

  /**
   * Claims up to `limit` generations to check: made with a character that has (or may still get) a reference,
   * not checked yet, tried fewer than LIKENESS.maxChecks times and not held by a check under way. Upscales
   * are not checked: they inherit their source's score.
   */
  async claimDue(db: Executor, limit: number): Promise<LikenessDue[]> {
    const result = await db.execute<LikenessDue>(sql`
      with due as (
        select g.id from ${generations} g join ${loraTrainings} t on t.id = g.lora_id
        where g.likeness_verdict is null and g.lora_id is not null and g.status = 'ACTIVE'
          and g.likeness_checks < ${LIKENESS.maxChecks}
          and (g.likeness_due_at is null or g.likeness_due_at <= now())
          and g.derivation is distinct from 'upscale'
          and t.deleted_at is null and (t.reference_face is not null or t.reference_checked_at is null)
        order by g.created_at
        limit ${limit}
        for update of g skip locked)
      update ${generations} g set likeness_checks = g.likeness_checks + 1,
        likeness_due_at = now() + make_interval(secs => ${CHECK_HOLD_SECONDS})
      from due where g.id = due.id
      returning g.id, g.lora_id, g.user_id, g.image_url`);
    return (result as unknown as { rows: LikenessDue[] }).rows;
  },

  /** A check that failed (the worker crashed or timed out) is tried again by the next pass after `seconds`. */
  async retryCheckSoon(db: Executor, generationId: string, seconds: number): Promise<void> {
    await db
      .update(generations)
      .set({ likenessDueAt: sql`now() + make_interval(secs => ${seconds})` })
      .where(and(eq(generations.id, generationId), isNull(generations.likenessVerdict)));
  },

  /**
   * Records a generation's score and gives it to its upscales not scored yet; the ids of the rows changed
   * (the generation first), for their events.
   */
  async saveScore(db: Executor, generationId: string, score: LikenessScore): Promise<string[]> {
    const rows = await db
      .update(generations)
      .set({ likeness: score.likeness, likenessVerdict: score.verdict, likenessDueAt: null })
      .where(
        sql`(${generations.id} = ${generationId} or (${generations.sourceId} = ${generationId} and ${generations.derivation} = 'upscale'
          and ${generations.likenessVerdict} is null))`,
      )
      .returning({ id: generations.id });
    return rows.map((r) => r.id).sort((a, b) => (a === generationId ? -1 : b === generationId ? 1 : 0));
  },

  /**
   * Gives upscales not scored yet their source's score when the source has one: an upscale made while its source
   * was being checked read it unscored and was saved after the score went to the upscales that existed then, and
   * an upscale of such an upscale is one step further. One step of the chain per call; the ids changed, with
   * their owners, for their events. Reads the likeness-due index (an upscale is never claimed itself).
   */
  async inheritScores(db: Executor): Promise<{ id: string; user_id: string }[]> {
    const result = await db.execute<{ id: string; user_id: string }>(sql`
      update ${generations} u set likeness = s.likeness, likeness_verdict = s.likeness_verdict, likeness_due_at = null
      from ${generations} s
      where u.likeness_verdict is null and u.lora_id is not null and u.status = 'ACTIVE' and u.likeness_checks < ${LIKENESS.maxChecks}
        and u.derivation = 'upscale' and s.id = u.source_id and s.likeness_verdict is not null
      returning u.id, u.user_id`);
    return (result as unknown as { rows: { id: string; user_id: string }[] }).rows;
  },

  /**
   * Takes one of the shoot's re-takes for this photo (call inside a transaction: the photo's row is locked):
   * true when the photo already holds one (an instance died mid re-take) or the shoot has fewer than `cap`
   * re-taken photos.
   */
  async claimRetake(tx: Executor, photoId: string, shootId: string, cap: number): Promise<boolean> {
    const [held] = await tx.select({ retaken: shootPhotos.retaken }).from(shootPhotos).where(eq(shootPhotos.id, photoId)).for('update');
    if (!held) return false;
    if (held.retaken) return true;
    const [shoot] = await tx
      .update(photoShoots)
      .set({ retaken: sql`${photoShoots.retaken} + 1` })
      .where(and(eq(photoShoots.id, shootId), sql`${photoShoots.retaken} < ${cap}`))
      .returning({ id: photoShoots.id });
    if (!shoot) return false;
    await tx.update(shootPhotos).set({ retaken: true }).where(eq(shootPhotos.id, photoId));
    return true;
  },

  /** A re-take that failed or was refused gives its count back (the first photo is kept; nothing was re-taken). */
  async releaseRetake(db: Executor, photoId: string, shootId: string): Promise<void> {
    const released = await db
      .update(shootPhotos)
      .set({ retaken: false })
      .where(and(eq(shootPhotos.id, photoId), eq(shootPhotos.retaken, true)))
      .returning({ id: shootPhotos.id });
    if (released.length)
      await db
        .update(photoShoots)
        .set({ retaken: sql`greatest(${photoShoots.retaken} - 1, 0)` })
        .where(eq(photoShoots.id, shootId));
  },
};
