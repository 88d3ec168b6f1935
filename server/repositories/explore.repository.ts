import { and, count, eq, type SQL } from 'drizzle-orm';
import { LISTS, type ExploreFilterName, type ExploreFilterOptions, type ExploreFilters } from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Executor } from '../db/index.ts';
import { exploreFilterOptions, exploreGallery, generations, loraTrainings } from '../db/schema.ts';
import { listOrder, listWhere } from './list-query.ts';

export type ExploreRow = typeof exploreGallery.$inferSelect;
export type NewExploreRow = typeof exploreGallery.$inferInsert;

const filterColumns = {
  gender: exploreGallery.gender,
  hair_color: exploreGallery.hairColor,
  ethnicity: exploreGallery.ethnicity,
  style: exploreGallery.style,
} as const;

function matching(filters: ExploreFilters): SQL | undefined {
  const conditions = (Object.keys(filterColumns) as ExploreFilterName[])
    .filter((name) => filters[name] !== undefined)
    .map((name) => eq(filterColumns[name], filters[name]!));
  return conditions.length ? and(...conditions) : undefined;
}

/** Featured first, then newest (product §7); the id breaks ties so pages never overlap (common/library.ts LISTS). */
const galleryOrder = listOrder(LISTS.explore, exploreGallery);

/** Drizzle queries of the explore gallery. */
export const exploreRepository = {
  /** A generation of any user to publish, with its character's gender and hair colour. */
  async generationToPublish(db: Executor, generationId: string) {
    const [found] = await db
      .select({ generation: generations, gender: loraTrainings.gender, hairColor: loraTrainings.hairColor })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(eq(generations.id, generationId))
      .limit(1);
    return found;
  },

  /**
   * One page. `few` says the filters match few rows: then walking the order index until a page is found
   * would read most of the table, so the matches are collected first (through the filter indexes; OFFSET 0
   * keeps the planner from merging the subquery back) and sorted.
   */
  listPage(db: Executor, filters: ExploreFilters, page: number, few = false): Promise<ExploreRow[]> {
    const offset = (page - 1) * LIMITS.pageSize;
    if (!few) {
      return db
        .select()
        .from(exploreGallery)
        .where(matching(filters))
        .orderBy(...galleryOrder)
        .limit(LIMITS.pageSize)
        .offset(offset);
    }
    const matches = db.select().from(exploreGallery).where(matching(filters)).offset(0).as('matches');
    return db
      .select()
      .from(matches)
      .orderBy(...listOrder(LISTS.explore, exploreGallery, matches))
      .limit(LIMITS.pageSize)
      .offset(offset);
  },

  async count(db: Executor, filters: ExploreFilters): Promise<number> {
    const [row] = await db.select({ n: count() }).from(exploreGallery).where(matching(filters));
    return row.n;
  },

  featured(db: Executor, limit: number): Promise<ExploreRow[]> {
    return db
      .select()
      .from(exploreGallery)
      .where(listWhere(LISTS.exploreFeatured, exploreGallery))
      .orderBy(...listOrder(LISTS.exploreFeatured, exploreGallery))
      .limit(limit);
  },

  /**
   * The distinct non-null values of each filter, sorted (product §7 filter options), from the view the hosted
   * SPA reads as well (explore_filter_options: a few index probes per value, whatever the gallery's size).
   */
  async filterOptions(db: Executor): Promise<ExploreFilterOptions> {
    const [row] = await db.select().from(exploreFilterOptions);
    return row;
  },

  async findById(db: Executor, id: string): Promise<ExploreRow | undefined> {
    const [row] = await db.select().from(exploreGallery).where(eq(exploreGallery.id, id)).limit(1);
    return row;
  },

  async findBySourceGeneration(db: Executor, generationId: string): Promise<ExploreRow | undefined> {
    const [row] = await db.select().from(exploreGallery).where(eq(exploreGallery.sourceGenerationId, generationId)).limit(1);
    return row;
  },

  async insert(db: Executor, row: NewExploreRow): Promise<ExploreRow> {
    const [inserted] = await db.insert(exploreGallery).values(row).returning();
    return inserted;
  },

  /** Inserts items; rows whose id exists already are left alone (the seed runs again after a crash). */
  async insertMany(db: Executor, rows: NewExploreRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const inserted = await db.insert(exploreGallery).values(rows).onConflictDoNothing().returning({ id: exploreGallery.id });
    return inserted.length;
  },

  async update(db: Executor, id: string, values: Partial<Omit<NewExploreRow, 'id'>>): Promise<ExploreRow | undefined> {
    const [row] = await db.update(exploreGallery).set(values).where(eq(exploreGallery.id, id)).returning();
    return row;
  },

  async setFeatured(db: Executor, id: string, isFeatured: boolean): Promise<ExploreRow | undefined> {
    const [row] = await db.update(exploreGallery).set({ isFeatured }).where(eq(exploreGallery.id, id)).returning();
    return row;
  },

  async remove(db: Executor, id: string): Promise<ExploreRow | undefined> {
    const [row] = await db.delete(exploreGallery).where(eq(exploreGallery.id, id)).returning();
    return row;
  },
};
