import { and, desc, eq, getTableColumns, gt, isNotNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { generationJobs, generations, loraTrainings } from '../db/schema.ts';

export type GenerationRow = typeof generations.$inferSelect;
export type NewGenerationRow = typeof generations.$inferInsert;
export type CharacterRow = Pick<
  typeof loraTrainings.$inferSelect,
  'id' | 'characterName' | 'triggerWord' | 'loraFileUrl' | 'gender' | 'hairColor' | 'createdAt'
>;
export interface GenerationWithCharacter {
  generation: GenerationRow;
  character: Pick<CharacterRow, 'id' | 'characterName' | 'triggerWord' | 'loraFileUrl'> | null;
}

/** The character columns a generation is listed with (select them as `character` beside the generation). */
export const characterColumns = {
  id: loraTrainings.id,
  characterName: loraTrainings.characterName,
  triggerWord: loraTrainings.triggerWord,
  loraFileUrl: loraTrainings.loraFileUrl,
};

/** A joined row as GenerationWithCharacter: a left join without a character yields all-null columns. */
export const withCharacter = (r: { generation: GenerationRow; character: GenerationWithCharacter['character'] | null }): GenerationWithCharacter => ({
  generation: r.generation,
  character: r.character?.id ? r.character : null,
});

/** Drizzle queries of generations, generation jobs and the characters they use. */
export const generationsRepository = {
  /** The caller's COMPLETED training whose LoRA file is `path` (spec §7: resolve lora_id by lora_file_url). */
  async findUsableCharacter(db: Executor, userId: string, path: string) {
    const [row] = await db
      .select(characterColumns)
      .from(loraTrainings)
      .where(and(eq(loraTrainings.userId, userId), eq(loraTrainings.status, 'COMPLETED'), eq(loraTrainings.loraFileUrl, path)))
      .limit(1);
    return row;
  },

  /** Usable characters: COMPLETED with a LoRA file, newest first (spec §7). */
  listCharacters(db: Executor, userId: string): Promise<CharacterRow[]> {
    return db
      .select({ ...characterColumns, gender: loraTrainings.gender, hairColor: loraTrainings.hairColor, createdAt: loraTrainings.createdAt })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.userId, userId), eq(loraTrainings.status, 'COMPLETED'), isNotNull(loraTrainings.loraFileUrl)))
      .orderBy(desc(loraTrainings.createdAt), desc(loraTrainings.id));
  },

  async listRecent(db: Executor, userId: string, limit: number): Promise<GenerationWithCharacter[]> {
    const rows = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(and(eq(generations.userId, userId), eq(generations.status, 'ACTIVE')))
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(limit);
    return rows.map(withCharacter);
  },

  async findOwned(db: Executor, userId: string, id: string): Promise<GenerationRow | undefined> {
    const [row] = await db
      .select()
      .from(generations)
      .where(and(eq(generations.id, id), eq(generations.userId, userId), eq(generations.status, 'ACTIVE')))
      .limit(1);
    return row;
  },

  async insertGeneration(db: Executor, row: NewGenerationRow): Promise<GenerationRow> {
    const [inserted] = await db.insert(generations).values(row).returning();
    return inserted;
  },

  /** A job of the user still running (started after `since`), if any. */
  async findRunningJob(db: Executor, userId: string, since: Date) {
    const [row] = await db
      .select({ id: generationJobs.id })
      .from(generationJobs)
      .where(and(eq(generationJobs.userId, userId), eq(generationJobs.status, 'PENDING'), gt(generationJobs.createdAt, since)))
      .limit(1);
    return row;
  },

  async insertJob(db: Executor, job: typeof generationJobs.$inferInsert): Promise<void> {
    await db.insert(generationJobs).values(job);
  },

  /** Moves a PENDING job to its end state; false when it had already ended (so its outcome is not applied twice). */
  async finishJob(
    db: Executor,
    id: string,
    outcome: { status: 'SUCCEEDED' | 'FAILED'; generationId?: string; providerRequestId?: string; error?: string },
  ): Promise<boolean> {
    const rows = await db
      .update(generationJobs)
      .set({ ...outcome, updatedAt: sql`now()` })
      .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'PENDING')))
      .returning({ id: generationJobs.id });
    return rows.length === 1;
  },

  listPendingJobsBefore(db: Executor, before: Date) {
    return db
      .select({ id: generationJobs.id, userId: generationJobs.userId })
      .from(generationJobs)
      .where(and(eq(generationJobs.status, 'PENDING'), lt(generationJobs.createdAt, before)));
  },
};
