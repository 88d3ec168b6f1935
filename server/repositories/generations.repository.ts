import { and, asc, desc, eq, getTableColumns, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../db/index.ts';
import { createdAtText, pastPageEnd, type PageEnd } from './keyset.ts';
import { generationJobs, generations, loraTrainings } from '../db/schema.ts';
import { leaseIsFree } from './job-leases.ts';
import { preparedStatement } from './prepared.ts';
import { rowOf } from './raw-rows.ts';
import { generationInSpace, trainingInSpace, usableCharacterOf } from './trainings.repository.ts';

export type GenerationRow = typeof generations.$inferSelect;
export type NewGenerationRow = typeof generations.$inferInsert;
export type CharacterRow = Pick<
  typeof loraTrainings.$inferSelect,
  'id' | 'characterName' | 'triggerWord' | 'loraFileUrl' | 'gender' | 'hairColor' | 'createdAt'
>;
export interface GenerationWithCharacter {
  generation: GenerationRow;
  character: (Pick<CharacterRow, 'id' | 'characterName' | 'triggerWord' | 'loraFileUrl'> & { photosDiffer?: boolean | null }) | null;
}

/** The character columns a generation is listed with (select them as `character` beside the generation). */
export const characterColumns = {
  id: loraTrainings.id,
  characterName: loraTrainings.characterName,
  triggerWord: loraTrainings.triggerWord,
  loraFileUrl: loraTrainings.loraFileUrl,
  photosDiffer: loraTrainings.photosDiffer,
};

/** A joined row as GenerationWithCharacter: a left join without a character yields all-null columns. */
export const withCharacter = (r: {
  generation: GenerationRow;
  character: GenerationWithCharacter['character'] | null;
}): GenerationWithCharacter => ({
  generation: r.generation,
  character: r.character?.id ? r.character : null,
});

/**
 * On every upscale's and edit's path, so prepared once per database: a named statement is parsed and planned
 * once per connection, and the SQL is built once (docs/decisions/014-generate-path.md).
 */
const prepareOwnedWithCharacter = (db: Db) =>
  db
    .select({ generation: getTableColumns(generations), character: characterColumns })
    .from(generations)
    .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
    .where(
      and(eq(generations.id, sql.placeholder('id')), eq(generations.userId, sql.placeholder('userId')), eq(generations.status, 'ACTIVE')),
    )
    .limit(1)
    .prepare('likeness_owned_generation');
const ownedWithCharacter = new WeakMap<Db, ReturnType<typeof prepareOwnedWithCharacter>>();

const generationColumns = getTableColumns(generations);
type GenerationColumn = keyof typeof generationColumns;

/**
 * finishWithGeneration's statement for one list of given columns (a generation, an upscale, an edit and a shoot
 * photo give different ones: a handful in all), prepared once with its values as placeholders, so its text is
 * not rebuilt, nor parsed again by Postgres, for every generation.
 */
const finishStatements = new Map<string, ReturnType<typeof preparedStatement>>();
function finishStatement(given: GenerationColumn[]) {
  const signature = given.join(',');
  let statement = finishStatements.get(signature);
  if (!statement) {
    statement = preparedStatement(`likeness_finish_generation_${finishStatements.size + 1}`, () => {
      const columns = generationColumns;
      const names = sql.join(
        given.map((key) => sql.identifier(columns[key].name)),
        sql`, `,
      );
      // In a SELECT list a parameter has no column to take its type from: each one is cast to its column's type.
      const values = sql.join(
        given.map((key) => sql`${sql.placeholder(`row.${key}`)}::${sql.raw(columns[key].getSQLType())}`),
        sql`, `,
      );
      // The columns this build knows, not `*`: a prepared statement whose result gains a column (another
      // version's migration during a rolling deploy) fails with "cached plan must not change result type".
      const returned = sql.join(
        Object.values(columns).map((column) => sql.identifier(column.name)),
        sql`, `,
      );
      const c = (column: { name: string }) => sql.identifier(column.name);
      const j = generationJobs;
      // The update of finishJob({ status: 'SUCCEEDED', … }); a provider request id left out keeps the stored one.
      const finish = sql`update ${j} set ${c(j.status)} = 'SUCCEEDED', ${c(j.generationId)} = ${sql.placeholder('row.id')}::uuid,
          ${c(j.providerRequestId)} = coalesce(${sql.placeholder('providerRequestId')}::text, ${c(j.providerRequestId)}), ${c(j.updatedAt)} = now()
        where ${c(j.id)} = ${sql.placeholder('jobId')}::uuid and ${c(j.status)} = 'PENDING' returning ${c(j.id)}`;
      return sql`
        with finished as (${finish}),
        saved as (insert into ${generations} (${names}) select ${values} from finished returning ${returned}),
        told as (select pg_notify(${sql.placeholder('channel')}::text, ${sql.placeholder('payload')}::text) from saved)
        select saved.*, (select count(*) from told) as told from saved`;
    });
    finishStatements.set(signature, statement);
  }
  return statement;
}

/** Drizzle queries of generations, paid jobs (generation_jobs) and the characters generations use. */
export const generationsRepository = {
  /**
   * The caller's usable character (usableCharacterOf) named by its id or by its LoRA file (product §7: resolve
   * lora_id by lora_file_url). Services reach it through characters.service.ts.
   */
  async findUsableCharacter(
    db: Executor,
    userId: string,
    ref: { id: string } | { loraFileUrl: string },
  ): Promise<CharacterRow | undefined> {
    const [row] = await db
      .select({ ...characterColumns, gender: loraTrainings.gender, hairColor: loraTrainings.hairColor, createdAt: loraTrainings.createdAt })
      .from(loraTrainings)
      .where(and(usableCharacterOf(userId), 'id' in ref ? eq(loraTrainings.id, ref.id) : eq(loraTrainings.loraFileUrl, ref.loraFileUrl)))
      .limit(1);
    return row;
  },

  /** Usable characters, newest first (product §7). */
  /** The usable characters of one space (issue 49; null: personal). */
  listCharacters(db: Executor, userId: string, teamId: string | null): Promise<CharacterRow[]> {
    return db
      .select({ ...characterColumns, gender: loraTrainings.gender, hairColor: loraTrainings.hairColor, createdAt: loraTrainings.createdAt })
      .from(loraTrainings)
      .where(and(usableCharacterOf(userId), trainingInSpace(teamId)))
      .orderBy(desc(loraTrainings.createdAt), desc(loraTrainings.id));
  },

  async listRecent(db: Executor, userId: string, limit: number, teamId: string | null): Promise<GenerationWithCharacter[]> {
    const rows = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(and(eq(generations.userId, userId), eq(generations.status, 'ACTIVE'), generationInSpace(teamId)))
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

  /** The caller's ACTIVE generation with its character (the source of an upscale or edit). */
  async findOwnedWithCharacter(db: Db, userId: string, id: string): Promise<GenerationWithCharacter | undefined> {
    let query = ownedWithCharacter.get(db);
    if (!query) ownedWithCharacter.set(db, (query = prepareOwnedWithCharacter(db)));
    const [row] = await query.execute({ id, userId });
    return row && withCharacter(row);
  },

  /**
   * A generation's end in one statement (so one round trip, atomic by itself): the PENDING job becomes
   * SUCCEEDED, the generation row is inserted from it, and the event's NOTIFY (`notification`, as EventBus
   * sends it) is sent from the inserted row. Undefined, and nothing written, when the job was no longer
   * PENDING (recovery ended it).
   */
  async finishWithGeneration(
    db: Executor,
    job: { id: string; providerRequestId?: string },
    row: NewGenerationRow & { id: string },
    notification: { channel: string; payload: string },
  ): Promise<GenerationRow | undefined> {
    const given = (Object.keys(row) as GenerationColumn[]).filter((key) => row[key] !== undefined);
    // Each value as drizzle's own insert would send it (a null is sent as null, not through the column's mapping).
    const values: Record<string, unknown> = {
      jobId: job.id,
      providerRequestId: job.providerRequestId ?? null,
      channel: notification.channel,
      payload: notification.payload,
    };
    for (const key of given) values[`row.${key}`] = row[key] === null ? null : generationColumns[key].mapToDriverValue(row[key]);
    const rows = await finishStatement(given)<Record<string, unknown>>(db, values);
    return rows[0] && rowOf<GenerationRow>(generationColumns, rows[0]);
  },

  async insertGeneration(db: Executor, row: NewGenerationRow): Promise<GenerationRow> {
    const [inserted] = await db.insert(generations).values(row).returning();
    return inserted;
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

  /** PENDING jobs nobody works on any more: their instance stopped renewing or gave the lease back. */
  listAbandonedJobs(db: Executor) {
    return db
      .select({ id: generationJobs.id, userId: generationJobs.userId, kind: generationJobs.kind, cost: generationJobs.cost })
      .from(generationJobs)
      .where(and(eq(generationJobs.status, 'PENDING'), leaseIsFree(generationJobs)));
  },

  /** Generations made before `before`, oldest first (retention). */
  /**
   * Marks up to `limit` ACTIVE generations made before `before` as deleted (an update their owner's open tabs
   * hear, where a row deleted outright reaches no browser); how many it marked.
   */
  async expireCreatedBefore(db: Executor, before: Date, limit: number): Promise<number> {
    const due = db
      .select({ id: generations.id })
      .from(generations)
      .where(and(eq(generations.status, 'ACTIVE'), lt(generations.createdAt, before)))
      .limit(limit);
    const marked = await db
      .update(generations)
      .set({ status: 'DELETED', deletedAt: sql`now()` })
      .where(inArray(generations.id, due))
      .returning({ id: generations.id });
    return marked.length;
  },

  /** Generations made before `before` that were marked deleted before `markedBefore`: what retention removes. */
  expiredBefore(db: Executor, before: Date, markedBefore: Date, limit: number): Promise<Pick<GenerationRow, 'id' | 'imageUrl'>[]> {
    return db
      .select({ id: generations.id, imageUrl: generations.imageUrl })
      .from(generations)
      .where(and(lt(generations.createdAt, before), eq(generations.status, 'DELETED'), lt(generations.deletedAt, markedBefore)))
      .orderBy(asc(generations.createdAt))
      .limit(limit);
  },

  async deleteMany(db: Executor, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await db.delete(generations).where(inArray(generations.id, ids)).returning({ id: generations.id })).length;
  },

  async countFavorites(db: Executor, userId: string): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(generations)
      .where(and(eq(generations.userId, userId), eq(generations.status, 'ACTIVE'), eq(generations.isFavorite, true)));
    return Number(row?.n ?? 0);
  },

  /** Favourites newest first after `after` (keyset), for a streamed ZIP. */
  favoritesAfter(db: Executor, userId: string, after: PageEnd | undefined, limit: number) {
    return db
      .select({
        id: generations.id,
        at: createdAtText(generations.createdAt),
        imageUrl: generations.imageUrl,
        outputFormat: generations.outputFormat,
      })
      .from(generations)
      .where(
        and(
          eq(generations.userId, userId),
          eq(generations.status, 'ACTIVE'),
          eq(generations.isFavorite, true),
          after ? pastPageEnd(generations.createdAt, generations.id, '<', after) : undefined,
        ),
      )
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(limit);
  },

  /** Which of these ids are generations. */
  async existingIds(db: Executor, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (await db.select({ id: generations.id }).from(generations).where(inArray(generations.id, ids))).map((r) => r.id);
  },
};
