import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authUsers,
  authVerifications,
  creditLedger,
  exploreGallery,
  generationJobs,
  generations,
  loraTrainings,
  rateLimits,
  signInAddresses,
  uploads,
  users,
} from '../../server/db/schema.ts';
import { isSafeKey, keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { exploreRepository } from '../../server/repositories/explore.repository.ts';
import { admin } from '../helpers/admin.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { samplePhoto } from '../helpers/photos.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { FAST_TRAINING, trainingArchive, trainingEnded, trainingPayload, uploadArchive } from '../helpers/training.ts';
import { uploadFile } from '../helpers/uploads.ts';

const generationRequest = (loras: { path: string; scale: number }[] = []) =>
  generationRequestBody({ prompt: 'a portrait in a sunny park', loras, seed: 11 });

/** Every stored file, as storage keys (local storage keeps them under <DATA_DIR>/files, beside its empty spares). */
function storedKeys(dataDir: string): string[] {
  const root = join(dataDir, 'files');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter(isSafeKey);
}

async function generate(client: TestClient, loras: { path: string; scale: number }[] = []) {
  const res = await client.post('/api/image/generate-image', generationRequest(loras));
  if (res.status !== 200) throw new Error(`generation failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { images: { url: string }[]; generation: { id: string } };
}

const uploadPhoto = async (client: TestClient) => uploadFile(client, await samplePhoto('man'), 'me.jpg', 'image/jpeg');

const resetLinks = (ts: TestServer, loginId: string) =>
  ts.rt.db.select().from(authVerifications).where(eq(authVerifications.value, loginId));

/** A person with everything the product keeps about them: a character, images, uploads, a published image. */
async function personWithData(ts: TestServer, opts: { train: boolean }) {
  const person = await ts.signUp({ credits: 1000, name: 'Dana Scully' });
  let lora: string | undefined;
  if (opts.train) {
    const archive = await uploadArchive(person.client, await trainingArchive(4));
    const submitted = await person.client.post(
      '/api/image/submit-lora-training',
      trainingPayload(archive, { character_name: 'Dana Scully' }),
    );
    if (submitted.status !== 200) throw new Error(`training refused: ${await submitted.text()}`);
    const { request_id } = await submitted.json();
    const done = await trainingEnded(person.client, request_id);
    expect(done.status).toBe('COMPLETED');
    lora = done.lora_file_url!;
  }
  // A mistyped password, then the right one: the sign-in guard keeps a counter and the address (personal data).
  expect((await ts.client().post('/api/auth/sign-in/email', { email: person.email, password: 'wrong-horse-1' })).status).toBe(401);
  expect((await ts.client().post('/api/auth/sign-in/email', { email: person.email, password: 'correct-horse-1' })).status).toBe(200);
  // A reset link still out: its row names the login by id, with no foreign key to go with it.
  expect((await ts.client().post('/api/auth/request-password-reset', { email: person.email })).status).toBe(200);
  const [{ loginId }] = await ts.rt.db.select({ loginId: users.clerkId }).from(users).where(eq(users.id, person.userId));
  expect(await resetLinks(ts, loginId!)).toHaveLength(1);
  const withCharacter = await generate(person.client, lora ? [{ path: lora, scale: 1 }] : []);
  const plain = await generate(person.client);
  await uploadPhoto(person.client);
  // Grid thumbnails are files too.
  expect((await person.client.get(withCharacter.images[0].url.replace('/media/', '/media/thumbs/384/'))).status).toBe(200);
  // An operator published one image (a copy under explore/), and another item shows the very same stored file.
  const published = await ts.rt.explore.publish(withCharacter.generation.id);
  const shared = await exploreRepository.insert(ts.rt.db, {
    imageUrl: plain.images[0].url,
    prompt: 'shared',
    width: 512,
    height: 512,
    sourceGenerationId: null,
  });
  return {
    ...person,
    loginId: loginId!,
    lora,
    generationUrls: [withCharacter.images[0].url, plain.images[0].url],
    exploreIds: [published.id, shared.id],
    publishedUrl: published.image_url,
  };
}

describe.each(testDatabases())('account erasure (%s)', (database) => {
  let ts: TestServer;
  let a: Awaited<ReturnType<typeof personWithData>>;
  let b: Awaited<ReturnType<typeof personWithData>>;
  let keysOfA: string[];
  let keysOfB: string[];
  beforeAll(async () => {
    ts = await startTestServer({ database, env: FAST_TRAINING });
    a = await personWithData(ts, { train: true });
    b = await personWithData(ts, { train: false });
    const all = storedKeys(ts.dataDir);
    const mine = (userId: string) => all.filter((k) => k.includes(`/${userId}/`));
    keysOfA = [...mine(a.userId), keyFromMediaUrl(a.publishedUrl)!];
    keysOfB = [...mine(b.userId), keyFromMediaUrl(b.publishedUrl)!];
  }, 120_000);
  afterAll(() => ts?.stop());

  it("removes the person's files, rows and published images, keeps the ledger, and leaves everyone else alone", async () => {
    // What A has before: a LoRA, generated images and their thumbnail, two uploads (archive and photo).
    expect(keysOfA.some((k) => k.startsWith(`loras/${a.userId}/`))).toBe(true);
    expect(keysOfA.some((k) => k.startsWith(`thumbs/384/generations/${a.userId}/`))).toBe(true);
    expect(keysOfA.filter((k) => k.startsWith(`uploads/${a.userId}/`))).toHaveLength(2);
    const ledgerBefore = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, a.userId));
    const bLedger = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, b.userId));
    const bBalance = await ts.rt.credits.balance(b.userId);
    const balanceBefore = await ts.rt.credits.balance(a.userId);
    expect(balanceBefore).toBe(1000 - 500 - 10 - 10);

    const report = await ts.rt.erasure.erase(a.userId);
    expect(report).toEqual({
      userId: a.userId,
      files: keysOfA.length,
      generations: 2,
      trainings: 1,
      uploads: 2,
      generationJobs: 2,
      exploreItems: 2,
      creditsForfeited: balanceBefore,
    });

    // Files: none of A's is left; every one of B's is.
    for (const key of keysOfA) expect(await ts.rt.storage.exists(key), key).toBe(false);
    for (const key of keysOfB) expect(await ts.rt.storage.exists(key), key).toBe(true);
    expect(storedKeys(ts.dataDir).filter((k) => k.includes(a.userId))).toEqual([]);
    // Rows: none of A's private ones; the published items are gone from the gallery, B's stays.
    for (const table of [generations, loraTrainings, uploads, generationJobs]) {
      expect(await ts.rt.db.select().from(table).where(eq(table.userId, a.userId))).toEqual([]);
    }
    for (const table of [generations, uploads, generationJobs]) {
      expect((await ts.rt.db.select().from(table).where(eq(table.userId, b.userId))).length).toBeGreaterThan(0);
    }
    expect(await ts.rt.db.select().from(exploreGallery).where(inArray(exploreGallery.id, a.exploreIds))).toEqual([]);
    expect(await ts.rt.db.select().from(exploreGallery).where(inArray(exploreGallery.id, b.exploreIds))).toHaveLength(2);
    for (const url of a.generationUrls) expect((await b.client.get(url)).status).toBe(404);

    // The ledger stays, anonymised, and still adds up: one more row writes the unused credits off.
    const ledgerAfter = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, a.userId));
    expect(ledgerAfter).toHaveLength(ledgerBefore.length + 1);
    expect(ledgerAfter.map((r) => r.delta).sort()).toEqual([...ledgerBefore.map((r) => r.delta), -balanceBefore].sort());
    expect(ledgerAfter.some((r) => r.reason.includes('Dana Scully'))).toBe(false);
    expect(ledgerAfter.map((r) => r.reason)).toContain('character training');
    expect(await ts.rt.credits.ledgerSum(a.userId)).toBe(0);
    expect(await ts.rt.credits.balance(a.userId)).toBe(0);
    expect(await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, b.userId))).toEqual(bLedger);
    expect(await ts.rt.credits.balance(b.userId)).toBe(bBalance);

    // The row: no email, no name; the login is gone with it.
    const [row] = await ts.rt.db.select().from(users).where(eq(users.id, a.userId));
    expect(row).toMatchObject({ email: null, fullName: null, credits: 0, erasedAt: expect.any(Date) });
    expect(await ts.rt.db.select().from(authUsers).where(eq(authUsers.email, a.email))).toEqual([]);
    expect(await resetLinks(ts, a.loginId)).toEqual([]);
    expect(await resetLinks(ts, b.loginId)).toHaveLength(1);
    // What the sign-in guard knew of the e-mail is gone; of B's, nothing.
    const guardRows = async (email: string) => [
      ...(await ts.rt.db.select({ key: rateLimits.key }).from(rateLimits)).filter((r) => r.key.includes(email)),
      ...(await ts.rt.db.select().from(signInAddresses).where(eq(signInAddresses.email, email))),
    ];
    expect(await guardRows(a.email)).toEqual([]);
    expect((await guardRows(b.email)).length).toBeGreaterThan(0);
    expect((await a.client.get('/api/me')).status).toBe(401);
    const signIn = await ts.client().post('/api/auth/sign-in/email', { email: a.email, password: 'correct-horse-1' });
    expect(signIn.status).toBe(401);
    const [bRow] = await ts.rt.db.select().from(users).where(eq(users.id, b.userId));
    expect(bRow).toMatchObject({ email: b.email, fullName: 'Dana Scully', erasedAt: null });
  });

  it('leaves a character made from erased photos usable by no one', async () => {
    const lora = a.lora!;
    expect(await ts.rt.storage.exists(keyFromMediaUrl(lora)!)).toBe(false);
    expect(await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.loraFileUrl, lora))).toEqual([]);
    const before = await ts.rt.credits.balance(b.userId);
    const stolen = await b.client.post('/api/image/generate-image', generationRequest([{ path: lora, scale: 1 }]));
    expect(stolen.status).toBe(403);
    expect((await a.client.post('/api/image/generate-image', generationRequest([{ path: lora, scale: 1 }]))).status).toBe(401);
    expect(await ts.rt.credits.balance(b.userId)).toBe(before);
    // Credits reaching the closed account later (a late payment) buy nothing there.
    await ts.rt.credits.grant(a.userId, 50, 'late payment', `test:${randomUUID()}`);
    await expect(ts.rt.credits.debit(a.userId, 10, 'Image generation', `test:${randomUUID()}`)).rejects.toMatchObject({
      status: 401,
      code: 'account_deleted',
    });
  });

  it('removes nothing the second time', async () => {
    const ledger = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, a.userId));
    const files = storedKeys(ts.dataDir);
    expect(await ts.rt.erasure.erase(a.userId)).toEqual({
      userId: a.userId,
      files: 0,
      generations: 0,
      trainings: 0,
      uploads: 0,
      generationJobs: 0,
      exploreItems: 0,
      creditsForfeited: 0,
    });
    expect(storedKeys(ts.dataDir)).toEqual(files);
    expect(await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, a.userId))).toEqual(ledger);
    expect(await ts.rt.erasure.eraseSelected({ email: a.email })).toEqual({ outcome: 'none' });
  });

  it('picks up files that appeared after the rows were gone (a step finishing late)', async () => {
    // A runner that stored a LoRA after the erasure removed its training: the next run removes the file.
    const orphan = `loras/${a.userId}/${randomUUID()}.json`;
    await ts.rt.storage.put(orphan, Buffer.from('{}'), 'application/json');
    expect((await ts.rt.erasure.erase(a.userId)).files).toBe(1);
    expect(await ts.rt.storage.exists(orphan)).toBe(false);
  });
});

describe('admin users erase', () => {
  it('erases by email, says what it removed, and is safe to run twice (stopped embedded server)', async () => {
    // The data folder outlives the server: the operator runs the command between a stop and a start.
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-erase-'));
    const ts = await startTestServer({ dataDir });
    const person = await ts.signUp({ credits: 100 });
    const other = await ts.signUp({ credits: 100 });
    await generate(person.client);
    await uploadPhoto(person.client);
    await generate(other.client);
    // The embedded database belongs to one process: the operator stops the server first.
    await ts.stop();
    const env = { DATA_DIR: dataDir };
    let restarted: TestServer | undefined;
    try {
      // The sign-in address, in any case.
      const first = await admin(env, 'users', 'erase', person.email.toUpperCase());
      expect(first.code).toBe(0);
      expect(first.out).toContain(`Erased the account ${person.userId} (${person.email.toUpperCase()}). Removed:`);
      expect(first.out).toMatch(/ 1 generation\n/);
      expect(first.out).toMatch(/ 1 upload\n/);
      expect(first.out).toMatch(/ 90 unused credits written off/);
      expect(first.out).toMatch(/ 2 stored files\n/);
      const second = await admin(env, 'users', 'erase', person.email);
      expect(second).toEqual({
        code: 0,
        out: `No account has the verified address ${person.email} (already erased, never signed up, or the address was never verified). Nothing was removed.`,
        err: '',
      });
      expect((await admin(env, 'users', 'erase')).code).toBe(64);
      expect((await admin(env, 'users', 'delete', person.email)).code).toBe(64);

      restarted = await startTestServer({ dataDir });
      expect(await restarted.rt.db.select().from(generations).where(eq(generations.userId, person.userId))).toEqual([]);
      expect(await restarted.rt.db.select().from(generations).where(eq(generations.userId, other.userId))).toHaveLength(1);
      expect(await restarted.rt.credits.ledgerSum(person.userId)).toBe(0);
      expect(await restarted.rt.credits.balance(other.userId)).toBe(90);
    } finally {
      await restarted?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('erases next to a live Postgres server', async () => {
    const ts = await startTestServer({ database: 'postgres' });
    try {
      const person = await ts.signUp({ credits: 20 });
      await generate(person.client);
      const env = { DATABASE_URL: ts.rt.config.DATABASE_URL!, AUTH_SECRET: ts.rt.config.AUTH_SECRET!, DATA_DIR: ts.dataDir };
      const first = await admin(env, 'users', 'erase', person.email);
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/ 1 generation\n/);
      expect((await person.client.get('/api/me')).status).toBe(401);
      expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, person.userId))).toEqual([]);
      expect((await admin(env, 'users', 'erase', person.email)).out).toMatch(/Nothing was removed/);
    } finally {
      await ts.stop();
    }
  }, 90_000);
});
