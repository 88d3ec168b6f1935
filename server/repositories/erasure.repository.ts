import { and, eq, inArray, like, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import {
  authUsers,
  creditLedger,
  exploreGallery,
  generationJobs,
  generations,
  loraTrainings,
  mailOutbox,
  photoShoots,
  uploads,
  users,
} from '../db/schema.ts';

/** Mail to or about the person: to their users row, or to one of their addresses. */
const theirMail = (userId: string, addresses: string[]): SQL | undefined =>
  addresses.length ? or(eq(mailOutbox.userId, userId), inArray(mailOutbox.toAddress, addresses)) : eq(mailOutbox.userId, userId);

/** Statements of an account's erasure (server/services/account-erasure.service.ts orders them). */
export const erasureRepository = {
  /** Marks the account erased (once; later runs keep the first time), taking its row lock; undefined: no such row. */
  async closeAccount(db: Executor, userId: string): Promise<{ clerkId: string; email: string | null } | undefined> {
    const [user] = await db
      .update(users)
      .set({ erasedAt: sql`coalesce(${users.erasedAt}, now())` })
      .where(eq(users.id, userId))
      .returning({ clerkId: users.clerkId, email: users.email });
    return user;
  },

  /** The users row of a provider's user id, created closed when there was none; closed either way. */
  async closeProviderAccount(db: Executor, providerId: string): Promise<string> {
    const [row] = await db
      .insert(users)
      .values({ clerkId: providerId, credits: 0, erasedAt: sql`now()` })
      .onConflictDoUpdate({ target: users.clerkId, set: { erasedAt: sql`coalesce(${users.erasedAt}, now())` } })
      .returning({ id: users.id });
    return row.id;
  },

  /** Explore items published from the person's generations (by source or by image). */
  async publishedFrom(db: Executor, userId: string): Promise<string[]> {
    // Subqueries, not lists: a person may have more generations than a query takes parameters.
    const own = (column: typeof generations.id | typeof generations.imageUrl) =>
      db.select({ value: column }).from(generations).where(eq(generations.userId, userId));
    const published = await db
      .select({ id: exploreGallery.id })
      .from(exploreGallery)
      .where(
        or(inArray(exploreGallery.sourceGenerationId, own(generations.id)), inArray(exploreGallery.imageUrl, own(generations.imageUrl))),
      );
    return published.map((p) => p.id);
  },

  /** Deletes the person's generation jobs, generations, photo shoots (with their photos), trainings and uploads. */
  async deleteRows(tx: Executor, userId: string) {
    const generationJobCount = (
      await tx.delete(generationJobs).where(eq(generationJobs.userId, userId)).returning({ id: generationJobs.id })
    ).length;
    const generationCount = (await tx.delete(generations).where(eq(generations.userId, userId)).returning({ id: generations.id })).length;
    // Photo shoots (their prompts name the character) go with their photos (cascade).
    await tx.delete(photoShoots).where(eq(photoShoots.userId, userId));
    const trainings = (await tx.delete(loraTrainings).where(eq(loraTrainings.userId, userId)).returning({ id: loraTrainings.id })).length;
    const uploadCount = (await tx.delete(uploads).where(eq(uploads.userId, userId)).returning({ id: uploads.id })).length;
    return { generationJobs: generationJobCount, generations: generationCount, trainings, uploads: uploadCount };
  },

  /** A built-in login's sign-in address. */
  async loginEmail(db: Executor, loginId: string): Promise<string | undefined> {
    const [login] = await db.select({ email: authUsers.email }).from(authUsers).where(eq(authUsers.id, loginId));
    return login?.email;
  },

  /** Ids of the mail to or about the person. */
  async theirMailIds(db: Executor, userId: string, addresses: string[]): Promise<string[]> {
    return (await db.select({ id: mailOutbox.id }).from(mailOutbox).where(theirMail(userId, addresses))).map((m) => m.id);
  },

  /** Deletes the mail to or about the person; returns the ids deleted. */
  async deleteTheirMail(tx: Executor, userId: string, addresses: string[]): Promise<string[]> {
    return (await tx.delete(mailOutbox).where(theirMail(userId, addresses)).returning({ id: mailOutbox.id })).map((m) => m.id);
  },

  /**
   * The personal details off the row: ledger reasons that quote what the person typed lose the quote
   * (`<quotedReason>: …` becomes `<quotedReason>`), the row's email, verified email and name are cleared.
   */
  async anonymise(tx: Executor, userId: string, quotedReason: string): Promise<void> {
    await tx
      .update(creditLedger)
      .set({ reason: quotedReason })
      .where(and(eq(creditLedger.userId, userId), like(creditLedger.reason, `${quotedReason}: %`)));
    await tx
      .update(users)
      .set({ email: null, verifiedEmail: null, fullName: null, updatedAt: sql`now()` })
      .where(eq(users.id, userId));
  },

  /** Deletes a built-in account's login (its password and sessions go with it). */
  async deleteLogin(tx: Executor, loginId: string): Promise<void> {
    await tx.delete(authUsers).where(eq(authUsers.id, loginId));
  },
};
