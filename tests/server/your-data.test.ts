import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEXTS, EXPORT_RATE_LIMITED } from '@common/account.ts';
import { TEXT_LIMITS } from '@common/text.ts';
import { SELECTION_GONE, SELECTION_TOO_LARGE } from '@common/library.ts';
import type { RealtimeEvent } from '@common/events.ts';
import { CHARACTER_CANCELLED_NOT_RESTORABLE, CHARACTER_RESTORE_REFUSED, CHARACTER_UNDO_SECONDS } from '@common/training.ts';
import { creditLedger, generations, loraTrainings, mailOutbox, rateLimits, subscriptions, uploads, users } from '../../server/db/schema.ts';
import type { SandboxProvider } from '../../server/providers/payments/sandbox.ts';
import { createDeletedCharactersPurge } from '../../server/jobs/deleted-characters.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { CANCELLED_BY_DELETE, requireUsableCharacter } from '../../server/services/characters.service.ts';
import { creemEnv, creemSubscription, signedWebhook, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { samplePhoto } from '../helpers/photos.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { FAST_TRAINING, listTrainings, trainingArchive, trainingEnded, trainingPayload, uploadArchive } from '../helpers/training.ts';
import { uploadFile } from '../helpers/uploads.ts';

/** The password of every account ts.signUp makes. */
const PASSWORD = 'correct-horse-1';

const SANDBOX_SECRET = 'sandbox-test-secret-0123456789abcdef';
const uid = () => randomBytes(6).toString('hex');
/** The photo check of a submission waits for the image analyser, which is slow on a busy machine. */
const PATIENT_VISION = { VISION_TIMEOUT_SECONDS: '300' };

/** The stored file behind a media URL, read from the local storage folder. */
const fileOf = (ts: TestServer, url: string) => join(ts.dataDir, 'files', keyFromMediaUrl(url)!);

async function generate(client: TestClient, loras: { path: string; scale: number }[] = [], prompt = 'a portrait in a sunny park') {
  const res = await client.post('/api/image/generate-image', generationRequestBody({ prompt, loras, seed: 7 }));
  if (res.status !== 200) throw new Error(`generation failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { images: { url: string }[]; generation: { id: string } };
}

async function train(client: TestClient, name = 'Dana') {
  const archive = await uploadArchive(client, await trainingArchive(4));
  const res = await client.post('/api/image/submit-lora-training', trainingPayload(archive, { character_name: name }));
  if (res.status !== 200) throw new Error(`training refused: ${res.status} ${await res.text()}`);
  const { request_id } = await res.json();
  return { archive, requestId: request_id as string };
}

async function zipOf(res: Response): Promise<Record<string, Uint8Array>> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  return unzipSync(new Uint8Array(await res.arrayBuffer()));
}

const del = (client: TestClient, path: string) => client.fetch(path, { method: 'DELETE' });
const restoreCharacter = (client: TestClient, id: string) => client.fetch(`/api/trainings/${id}/restore`, { method: 'POST' });
/** Moves a character's delete back in time, past its Undo window. */
const deleteLapsed = (server: TestServer, id: string) =>
  server.rt.db
    .update(loraTrainings)
    .set({ deletedAt: sql`now() - make_interval(secs => ${CHARACTER_UNDO_SECONDS + 1})` })
    .where(eq(loraTrainings.id, id));
/** One pass of the deleted characters' purge, now. */
async function purgeCharacters(server: TestServer) {
  await server.rt.deletedCharactersPurge.release();
  await server.rt.deletedCharactersPurge.runNow();
}
const patch = (client: TestClient, path: string, body: unknown) =>
  client.fetch(path, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each(testDatabases())('your data, your control (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database, env: { ...FAST_TRAINING, ...PATIENT_VISION, SANDBOX_WEBHOOK_SECRET: SANDBOX_SECRET } });
  });
  afterAll(() => ts?.stop());

  describe('characters', () => {
    it('deletes a character: the row is marked and no route can use it; its LoRA, photo archive and upload go once the Undo window has lapsed', async () => {
      const owner = await ts.signUp({ credits: 1000 });
      const { archive, requestId } = await train(owner.client, 'Dana');
      const done = await trainingEnded(owner.client, requestId);
      expect(done.status).toBe('COMPLETED');
      const lora = done.lora_file_url!;
      const made = await generate(owner.client, [{ path: lora, scale: 1 }]);
      expect(existsSync(fileOf(ts, lora))).toBe(true);
      expect(existsSync(fileOf(ts, archive))).toBe(true);

      // Someone else cannot delete or rename it, whatever they try.
      const stranger = await ts.signUp();
      expect((await del(stranger.client, `/api/trainings/${done.id}`)).status).toBe(404);
      expect((await patch(stranger.client, `/api/trainings/${done.id}`, { character_name: 'Mine' })).status).toBe(404);
      expect((await del(ts.client(), `/api/trainings/${done.id}`)).status).toBe(401);
      expect(existsSync(fileOf(ts, lora))).toBe(true);

      const res = await del(owner.client, `/api/trainings/${done.id}`);
      expect(res.status).toBe(204);
      const [row] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.id, done.id));
      expect(row.deletedAt).toBeInstanceOf(Date);
      // Where its files are moves off the row (nothing serves or uses them), kept for Undo until the purge.
      expect(row).toMatchObject({ loraFileUrl: null, uploadUrl: null, result: null, characterName: 'Dana', filesRemovedAt: null });
      expect(row.deletedFiles).toMatchObject({ loraFileUrl: lora, uploadUrl: archive, cancelled: false });
      expect(existsSync(fileOf(ts, lora))).toBe(true);
      expect(existsSync(fileOf(ts, archive))).toBe(true);
      // Kept, but not served meanwhile, its owner included.
      expect((await owner.client.get(lora)).status).toBe(404);
      // A purge within the window leaves them.
      await purgeCharacters(ts);
      expect(existsSync(fileOf(ts, lora))).toBe(true);

      // Gone from Previous Trainings and the character picker; refused by create-image and by id (photo shoots).
      expect((await listTrainings(owner.client)).map((t) => t.id)).not.toContain(done.id);
      expect((await (await owner.client.get('/api/characters')).json()).items).toEqual([]);
      const refused = await owner.client.post('/api/image/generate-image', generationRequestBody({ loras: [{ path: lora, scale: 1 }] }));
      expect(refused.status).toBe(403);
      expect((await refused.json()).code).toBe('lora_not_allowed');
      await expect(requireUsableCharacter(ts.rt.db, owner.userId, { id: done.id })).rejects.toMatchObject({
        status: 410,
        code: 'character_deleted',
      });
      await expect(requireUsableCharacter(ts.rt.db, stranger.userId, { id: done.id })).rejects.toMatchObject({ status: 403 });
      await expect(requireUsableCharacter(ts.rt.db, owner.userId, { id: 'not-an-id' })).rejects.toMatchObject({ status: 403 });
      // Renaming a deleted character finds nothing.
      expect((await patch(owner.client, `/api/trainings/${done.id}`, { character_name: 'Again' })).status).toBe(404);

      // The image made with it stays in the gallery, with the character's name.
      const page = await (await owner.client.get('/api/library/generations')).json();
      expect(page.items.map((g: { id: string }) => g.id)).toContain(made.generation.id);
      expect(existsSync(fileOf(ts, made.images[0].url))).toBe(true);

      // A double click: the second delete succeeds and removes nothing more.
      expect((await del(owner.client, `/api/trainings/${done.id}`)).status).toBe(204);
      expect(existsSync(fileOf(ts, made.images[0].url))).toBe(true);

      // Once the window has lapsed the purge removes its files and the archive's upload; the image stays.
      await deleteLapsed(ts, done.id);
      await purgeCharacters(ts);
      expect(existsSync(fileOf(ts, lora))).toBe(false);
      expect(existsSync(fileOf(ts, archive))).toBe(false);
      expect(await ts.rt.db.select().from(uploads).where(eq(uploads.url, archive))).toEqual([]);
      const [purged] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.id, done.id));
      expect(purged).toMatchObject({ filesRemovedAt: expect.any(Date), deletedFiles: null, characterName: 'Dana' });
      expect(existsSync(fileOf(ts, made.images[0].url))).toBe(true);
    }, 120_000);

    it('keeps a photo archive another live character of the person was trained from', async () => {
      const owner = await ts.signUp({ credits: 1000 });
      const archive = await uploadArchive(owner.client, await trainingArchive(4));
      const ids: string[] = [];
      for (const name of ['First', 'Second']) {
        const res = await owner.client.post('/api/image/submit-lora-training', trainingPayload(archive, { character_name: name }));
        ids.push((await trainingEnded(owner.client, (await res.json()).request_id)).id);
      }
      expect((await del(owner.client, `/api/trainings/${ids[0]}`)).status).toBe(204);
      await deleteLapsed(ts, ids[0]);
      await purgeCharacters(ts);
      expect(existsSync(fileOf(ts, archive))).toBe(true);
      expect((await del(owner.client, `/api/trainings/${ids[1]}`)).status).toBe(204);
      await deleteLapsed(ts, ids[1]);
      await purgeCharacters(ts);
      expect(existsSync(fileOf(ts, archive))).toBe(false);
    });

    describe('Undo of a delete', () => {
      const rowOf = async (server: TestServer, id: string) =>
        (await server.rt.db.select().from(loraTrainings).where(eq(loraTrainings.id, id)))[0];
      async function trained(name: string) {
        // Enough for a second training and an image.
        const owner = await ts.signUp({ credits: 1200 });
        const { archive, requestId } = await train(owner.client, name);
        const done = await trainingEnded(owner.client, requestId);
        expect(done.status).toBe('COMPLETED');
        return { owner, archive, done, lora: done.lora_file_url! };
      }

      it('brings a character back within the window, in its place and usable again, and tells the other tabs; a second Undo changes nothing', async () => {
        const { owner, done, lora, archive } = await trained('Undone');
        const older = await trainingEnded(owner.client, (await train(owner.client, 'Older')).requestId);
        const before = (await listTrainings(owner.client)).map((t) => t.id);
        const events: RealtimeEvent[] = [];
        const unsubscribe = ts.rt.events.subscribe(owner.userId, { onEvent: (e) => events.push(e as RealtimeEvent), onDisconnect() {} });
        try {
          expect((await del(owner.client, `/api/trainings/${done.id}`)).status).toBe(204);
          expect((await listTrainings(owner.client)).map((t) => t.id)).toEqual(before.filter((id) => id !== done.id));
          const res = await restoreCharacter(owner.client, done.id);
          expect(res.status).toBe(200);
          expect(await res.json()).toMatchObject({ id: done.id, character_name: 'Undone', status: 'COMPLETED', lora_file_url: lora });
          expect(await rowOf(ts, done.id)).toMatchObject({
            deletedAt: null,
            deletedFiles: null,
            filesRemovedAt: null,
            loraFileUrl: lora,
            uploadUrl: archive,
          });
          expect((await owner.client.get(lora)).status).toBe(200);
          // Where it was in Previous Trainings, and in the character picker; generating with it works.
          expect((await listTrainings(owner.client)).map((t) => t.id)).toEqual(before);
          const picker = (await (await owner.client.get('/api/characters')).json()).items.map((c: { id: string }) => c.id);
          expect(picker).toEqual(before);
          await generate(owner.client, [{ path: lora, scale: 1 }]);
          expect((await requireUsableCharacter(ts.rt.db, owner.userId, { id: done.id })).id).toBe(done.id);
          // Twice (a retried request): still there, and no second event.
          expect((await restoreCharacter(owner.client, done.id)).status).toBe(200);
          // The purge after the window has nothing of it to remove.
          await deleteLapsed(ts, older.id);
          await purgeCharacters(ts);
          expect(existsSync(fileOf(ts, lora))).toBe(true);
          expect(existsSync(fileOf(ts, archive))).toBe(true);
          await expect
            .poll(() => events.filter((e) => e.type === 'training' && e.id === done.id), { timeout: 10_000 })
            .toEqual([
              { type: 'training', action: 'deleted', id: done.id, status: 'COMPLETED' },
              { type: 'training', action: 'restored', id: done.id, status: 'COMPLETED' },
            ]);
        } finally {
          unsubscribe();
        }
      });

      it('refuses once the window has passed or the files are purged, and changes nothing', async () => {
        const { owner, done, lora } = await trained('Late');
        expect((await del(owner.client, `/api/trainings/${done.id}`)).status).toBe(204);
        await deleteLapsed(ts, done.id);
        const late = await restoreCharacter(owner.client, done.id);
        expect(late.status).toBe(410);
        expect(await late.json()).toEqual({ code: 'restore_refused', message: CHARACTER_RESTORE_REFUSED, requestId: expect.any(String) });
        expect(await rowOf(ts, done.id)).toMatchObject({ deletedAt: expect.any(Date), loraFileUrl: null });
        expect(existsSync(fileOf(ts, lora))).toBe(true);

        // Back inside the window by its time, but purged: refused too.
        await purgeCharacters(ts);
        expect(existsSync(fileOf(ts, lora))).toBe(false);
        await ts.rt.db
          .update(loraTrainings)
          .set({ deletedAt: sql`now()` })
          .where(eq(loraTrainings.id, done.id));
        const purged = await restoreCharacter(owner.client, done.id);
        expect(purged.status).toBe(410);
        expect((await purged.json()).message).toBe(CHARACTER_RESTORE_REFUSED);
        expect((await listTrainings(owner.client)).map((t) => t.id)).not.toContain(done.id);
        expect((await (await owner.client.get('/api/characters')).json()).items).toEqual([]);
      });

      it("never restores someone else's character, or one that does not exist (404 like a missing one)", async () => {
        const { owner, done } = await trained('Theirs');
        const intruder = await ts.signUp();
        expect((await del(owner.client, `/api/trainings/${done.id}`)).status).toBe(204);
        for (const target of [done.id, randomUUID(), 'not-a-uuid']) {
          const res = await restoreCharacter(intruder.client, target);
          expect(res.status, target).toBe(404);
          expect(await res.json()).toEqual({ code: 'not_found', message: 'No such character.', requestId: expect.any(String) });
        }
        expect((await restoreCharacter(ts.client(), done.id)).status).toBe(401);
        expect(await rowOf(ts, done.id)).toMatchObject({ deletedAt: expect.any(Date) });
        // The owner still can; an owned character not deleted is no business of the intruder either.
        expect((await restoreCharacter(owner.client, done.id)).status).toBe(200);
        expect((await restoreCharacter(intruder.client, done.id)).status).toBe(404);
      });

      it('an Undo and the purge never both win: either the character is back with its files, or both are gone', async () => {
        // A purge that treats every delete as lapsed, racing an Undo that is still in time.
        const eager = createDeletedCharactersPurge({ characters: ts.rt.characters, logger: ts.rt.logger, undoSeconds: 0 });
        for (let round = 0; round < 3; round++) {
          const { owner, done, lora } = await trained(`Race ${round}`);
          expect((await del(owner.client, `/api/trainings/${done.id}`)).status).toBe(204);
          const [undo] = await Promise.all([restoreCharacter(owner.client, done.id), eager()]);
          const row = await rowOf(ts, done.id);
          if (undo.status === 200) {
            expect(row).toMatchObject({ deletedAt: null, filesRemovedAt: null, loraFileUrl: lora });
            expect(existsSync(fileOf(ts, lora))).toBe(true);
          } else {
            expect(undo.status).toBe(410);
            expect(row).toMatchObject({ deletedAt: expect.any(Date), filesRemovedAt: expect.any(Date), loraFileUrl: null });
            expect(existsSync(fileOf(ts, lora))).toBe(false);
          }
        }
      }, 180_000);
    });

    it('renames a character, refusing an empty, a 200-character or a malformed name', async () => {
      const owner = await ts.signUp({ credits: 1000 });
      const done = await trainingEnded(owner.client, (await train(owner.client, 'Old name')).requestId);
      for (const body of [
        { character_name: '' },
        { character_name: '   ' },
        { character_name: 'x'.repeat(200) },
        {},
        null,
        { character_name: 5 },
      ]) {
        const res = await patch(owner.client, `/api/trainings/${done.id}`, body);
        expect(res.status).toBe(400);
        expect((await res.json()).message).toMatch(/character_name|body/);
      }
      expect((await patch(owner.client, '/api/trainings/nope', { character_name: 'A' })).status).toBe(404);
      expect((await listTrainings(owner.client)).find((t) => t.id === done.id)?.character_name).toBe('Old name');

      const res = await patch(owner.client, `/api/trainings/${done.id}`, { character_name: '  New name  ' });
      expect(res.status).toBe(200);
      expect((await res.json()).character_name).toBe('New name');
      expect((await listTrainings(owner.client)).find((t) => t.id === done.id)?.character_name).toBe('New name');
    });
  });

  describe('selection in My Generations', () => {
    it('favourites, deletes and downloads up to 200 of the caller’s own images, all or nothing', async () => {
      const owner = await ts.signUp({ credits: 100 });
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await generate(owner.client, [], `picture number ${i}`));
      const ids = made.map((m) => m.generation.id);
      const other = await ts.signUp({ credits: 20 });
      const theirs = await generate(other.client);

      // Bad input changes nothing.
      const bad: [unknown, string | RegExp][] = [
        [{ action: 'delete', ids: [] }, /select at least one image/],
        [{ action: 'delete', ids: Array.from({ length: 201 }, () => randomUUID()) }, SELECTION_TOO_LARGE],
        [{ action: 'delete', ids: ['1 or 1=1'] }, /generation ids/],
        [{ action: 'archive', ids }, /delete, favorite or restore/],
        [{ ids }, /action/],
        [[], /body/],
      ];
      for (const [body, message] of bad) {
        const res = await owner.client.post('/api/library/selection', body);
        expect(res.status).toBe(400);
        expect((await res.json()).message).toMatch(message);
      }
      const mixed = await owner.client.post('/api/library/selection', { action: 'delete', ids: [...ids, theirs.generation.id] });
      expect(mixed.status).toBe(404);
      expect((await mixed.json()).message).toBe(SELECTION_GONE);
      expect((await owner.client.post('/api/library/selection', { action: 'favorite', ids: [theirs.generation.id] })).status).toBe(404);
      expect((await ts.client().post('/api/library/selection', { action: 'delete', ids })).status).toBe(401);
      const statuses = await ts.rt.db
        .select({ status: generations.status, fav: generations.isFavorite })
        .from(generations)
        .where(eq(generations.userId, owner.userId));
      expect(statuses.every((s) => s.status === 'ACTIVE' && !s.fav)).toBe(true);
      const [theirRow] = await ts.rt.db.select().from(generations).where(eq(generations.id, theirs.generation.id));
      expect(theirRow).toMatchObject({ status: 'ACTIVE', isFavorite: false });

      // Favourite three (one twice: repeats count once), then delete two.
      const fav = await owner.client.post('/api/library/selection', { action: 'favorite', ids: [ids[0], ids[1], ids[2], ids[2]] });
      expect(fav.status).toBe(200);
      expect(await fav.json()).toEqual({ changed: 3 });
      const favorites = await (await owner.client.get('/api/library/generations?favorites=true')).json();
      expect(favorites.total).toBe(3);
      const gone = await owner.client.post('/api/library/selection', { action: 'delete', ids: [ids[0], ids[3]] });
      expect(await gone.json()).toEqual({ changed: 2 });
      const left = await (await owner.client.get('/api/library/generations')).json();
      expect(left.items.map((g: { id: string }) => g.id).sort()).toEqual([ids[1], ids[2]].sort());
      // Deleting them again (a double click) is refused without touching anything else.
      expect((await owner.client.post('/api/library/selection', { action: 'delete', ids: [ids[0]] })).status).toBe(404);
      expect((await (await owner.client.get('/api/library/generations')).json()).total).toBe(2);

      // Download: the original files, byte for byte.
      const zip = await zipOf(await owner.client.get(`/api/library/selection.zip?ids=${ids[1]},${ids[2]}`));
      const names = Object.keys(zip).sort();
      expect(names).toHaveLength(2);
      for (const i of [1, 2]) {
        const name = names.find((n) => n.includes(ids[i]))!;
        expect(name).toMatch(/^\d{4}-\d{2}-\d{2}_[0-9a-f-]{36}\.jpeg$/);
        expect(Buffer.from(zip[name]).equals(readFileSync(fileOf(ts, made[i].images[0].url)))).toBe(true);
      }
      expect((await owner.client.get(`/api/library/selection.zip?ids=${ids[1]},${theirs.generation.id}`)).status).toBe(404);
      expect((await owner.client.get(`/api/library/selection.zip?ids=${ids[0]}`)).status).toBe(404);
      expect((await owner.client.get('/api/library/selection.zip')).status).toBe(400);
      expect((await owner.client.get('/api/library/selection.zip?ids=')).status).toBe(400);
      expect((await ts.client().get(`/api/library/selection.zip?ids=${ids[1]}`)).status).toBe(401);
    });
  });

  describe('download my data', () => {
    it('streams every image, the prompts and parameters, characters, the ledger and a README; once per 10 minutes', async () => {
      const owner = await ts.signUp({ credits: 1000, name: 'Export Person' });
      const done = await trainingEnded(owner.client, (await train(owner.client, 'Exported')).requestId);
      const first = await generate(owner.client, [{ path: done.lora_file_url!, scale: 0.8 }], 'first "quoted" prompt');
      const second = await generate(owner.client, [], 'second prompt');
      const photo = await uploadFile(owner.client, await samplePhoto('man'), 'me.jpg', 'image/jpeg');
      const other = await ts.signUp({ credits: 20 });
      await generate(other.client, [], 'someone else');

      expect((await ts.client().get('/api/me/export')).status).toBe(401);
      const res = await owner.client.get('/api/me/export');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Likeness-my-data-\d{4}-\d{2}-\d{2}\.zip"$/);
      const zip = await zipOf(res);
      const images = Object.keys(zip).filter((n) => n.startsWith('images/'));
      expect(images).toHaveLength(2);
      for (const g of [first, second]) {
        const name = images.find((n) => n.includes(g.generation.id))!;
        expect(Buffer.from(zip[name]).equals(readFileSync(fileOf(ts, g.images[0].url)))).toBe(true);
      }
      const uploaded = Object.keys(zip).filter((n) => n.startsWith('uploads/'));
      expect(uploaded.some((n) => Buffer.from(zip[n]).equals(readFileSync(fileOf(ts, photo))))).toBe(true);

      const gens = JSON.parse(strFromU8(zip['generations.json']));
      expect(gens).toHaveLength(2);
      expect(gens[0]).toMatchObject({
        id: first.generation.id,
        prompt: 'first "quoted" prompt',
        width: 512,
        height: 512,
        seed: '7',
        num_inference_steps: 28,
        guidance_scale: 3.5,
        character: { id: done.id, name: 'Exported', strength: 0.8 },
      });
      expect(images).toContain(gens[0].file);
      expect(gens[1]).toMatchObject({ prompt: 'second prompt', character: null });
      expect(JSON.parse(strFromU8(zip['characters.json']))).toEqual([
        expect.objectContaining({
          id: done.id,
          name: 'Exported',
          status: 'COMPLETED',
          photo_checks: expect.arrayContaining([expect.objectContaining({ name: 'photo-1.jpg', badge: expect.any(String), faces: 1 })]),
        }),
      ]);

      const csv = strFromU8(zip['credits.csv']).trim().split('\r\n');
      expect(csv[0]).toBe('created_at,kind,amount,balance_after,reason');
      const ledger = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, owner.userId));
      expect(csv).toHaveLength(ledger.length + 1);
      expect(csv.some((l) => /,debit,-500,500,character training: Exported$/.test(l))).toBe(true);
      const readme = strFromU8(zip['README.txt']);
      for (const file of ['images/', 'generations.json', 'characters.json', 'credits.csv', 'README.txt']) expect(readme).toContain(file);
      expect(readme).toContain('images/ holds 2 images.');
      expect(JSON.stringify(gens)).not.toContain('someone else');

      // At most one export per account per 10 minutes; other people are not held up.
      const again = await owner.client.get('/api/me/export');
      expect(again.status).toBe(429);
      expect((await again.json()).message).toBe(EXPORT_RATE_LIMITED);
      expect((await other.client.get('/api/me/export')).status).toBe(200);
    });

    it('pages through many rows whose times differ below a millisecond: each once, none left out', async () => {
      const { client, userId } = await ts.signUp();
      // Postgres keeps microseconds (now(), clock_timestamp()); a page's end read back as a Date keeps milliseconds.
      await ts.rt.db.execute(sql`
        insert into generations (user_id, prompt, width, height, image_url, is_favorite, created_at)
        select ${userId}::uuid, 'p' || i, 512, 512, '/media/generations/' || ${userId} || '/' || gen_random_uuid() || '.jpeg', true,
               timestamptz '2025-01-01 00:00:00+00' + (i / 3) * interval '1 second' + (i % 3) * interval '1 microsecond'
        from generate_series(1, 602) as i`);
      const items = JSON.parse(strFromU8((await zipOf(await client.get('/api/me/export')))['generations.json'])) as { id: string }[];
      expect(items).toHaveLength(602);
      expect(new Set(items.map((i) => i.id)).size).toBe(602);

      const favourites = await ts.rt.db.select({ url: generations.imageUrl }).from(generations).where(eq(generations.userId, userId));
      for (const { url } of favourites) await ts.rt.storage.put(keyFromMediaUrl(url)!, Buffer.from('x'), 'image/jpeg');
      expect(Object.keys(await zipOf(await client.get('/api/favorites/archive')))).toHaveLength(602);
    });

    it('exports an account with no images as a ZIP that says so', async () => {
      const empty = await ts.signUp();
      const zip = await zipOf(await empty.client.get('/api/me/export'));
      expect(Object.keys(zip).filter((n) => n.startsWith('images/'))).toEqual([]);
      expect(JSON.parse(strFromU8(zip['generations.json']))).toEqual([]);
      expect(JSON.parse(strFromU8(zip['characters.json']))).toEqual([]);
      expect(strFromU8(zip['README.txt'])).toContain('Your gallery has no images yet');
    });
  });

  describe('delete account', () => {
    it('refuses a wrong e-mail and erases nothing', async () => {
      const person = await ts.signUp({ credits: 50 });
      await generate(person.client);
      const wrong = await person.client.post('/api/me/delete', { email: 'someone@else.com', password: PASSWORD });
      expect(wrong.status).toBe(422);
      expect((await wrong.json()).message).toBe(ACCOUNT_TEXTS.emailMismatch);
      for (const body of [{ email: '', password: PASSWORD }, {}, { email: 42, password: PASSWORD }, null]) {
        const res = await person.client.post('/api/me/delete', body);
        expect(res.status).toBe(400);
        expect((await res.json()).message).toMatch(/^(email|password|body): /);
      }
      expect((await ts.client().post('/api/me/delete', { email: person.email, password: PASSWORD })).status).toBe(401);
      const me = await (await person.client.get('/api/me')).json();
      expect(me).toMatchObject({ email: person.email, credits: 40 });
    });

    it('asks for the current password: a missing, wrong or huge one erases nothing, and wrong ones share the limit of Change password', async () => {
      const person = await ts.signUp({ credits: 50 });
      await generate(person.client);
      const answers: { status: number; body: { code?: string; message: string } }[] = [];
      const attempt = async (body: unknown) => {
        const res = await person.client.post('/api/me/delete', body);
        answers.push({ status: res.status, body: await res.json() });
        return answers.at(-1)!;
      };
      // Missing, empty, not text, huge: refused before any password is compared, with the field named.
      for (const password of [undefined, '', 42, 'x'.repeat(TEXT_LIMITS.passwordMax + 1), 'x'.repeat(1_000_000)]) {
        const refused = await attempt({ email: person.email, password });
        expect(refused.status).toBe(400);
        expect(refused.body.message).toMatch(/^(password|body): /);
      }
      // Wrong: 'Your password is incorrect. Nothing was deleted.'
      const wrong = await attempt({ email: person.email, password: 'not-my-password-1' });
      expect(wrong).toEqual({
        status: 400,
        body: expect.objectContaining({ code: 'wrong_password', message: ACCOUNT_TEXTS.wrongPassword }),
      });
      // Wrong current passwords are counted per account with Change password's: 10 in all, then 429 with the wait.
      for (let i = 0; i < 4; i++) {
        const res = await person.client.post('/api/auth/change-password', {
          currentPassword: `wrong-${i}-x`,
          newPassword: 'quiet-meadow-compass-38',
        });
        expect(res.status).toBe(400);
      }
      for (let i = 0; i < 5; i++) expect((await attempt({ email: person.email, password: `wrong-again-${i}` })).status).toBe(400);
      const limited = await attempt({ email: person.email, password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(limited.body.message).toBe('Too many wrong passwords. Please try again in 15 minutes.');
      expect(
        (await person.client.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: 'quiet-meadow-compass-38' }))
          .status,
      ).toBe(429);

      // Nothing was erased or cancelled: the account, its image, its credits and its session are all there.
      const me = await (await person.client.get('/api/me')).json();
      expect(me).toMatchObject({ email: person.email, credits: 40 });
      expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, person.userId))).toHaveLength(1);
      const [user] = await ts.rt.db.select().from(users).where(eq(users.id, person.userId));
      expect(user.erasedAt).toBeNull();

      // Once the window has passed (its counter gone), the right password deletes.
      await ts.rt.db.delete(rateLimits).where(eq(rateLimits.key, `password-check:account:${user.clerkId}`));
      expect((await person.client.post('/api/me/delete', { email: person.email, password: PASSWORD })).status).toBe(204);
    });

    it('cancels the sandbox subscription, erases everything, ends the session, and the password no longer signs in', async () => {
      const person = await ts.signUp({ credits: 1000 });
      const done = await trainingEnded(person.client, (await train(person.client)).requestId);
      const made = await generate(person.client, [{ path: done.lora_file_url!, scale: 1 }]);
      const sandbox = ts.rt.payments as SandboxProvider;
      const sub = {
        id: `sub_${uid()}`,
        productId: sandbox.productIdFor('BASIC'),
        customerId: sandbox.customerIdFor(person.userId),
        userId: person.userId,
        transactionId: `tran_${uid()}`,
      };
      const paid = signedWebhook(SANDBOX_SECRET, 'subscription.paid', creemSubscription(sub));
      expect((await fetch(`${ts.url}/api/webhooks/sandbox`, { method: 'POST', body: paid.body, headers: paid.headers })).status).toBe(200);
      expect(await (await person.client.get('/api/me')).json()).toMatchObject({ subscription_status: 'active' });

      const res = await person.client.post('/api/me/delete', { email: `  ${person.email.toUpperCase()} `, password: PASSWORD });
      expect(res.status).toBe(204);
      const [row] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
      expect(row.status).toBe('canceled');
      const [user] = await ts.rt.db.select().from(users).where(eq(users.id, person.userId));
      expect(user).toMatchObject({ email: null, fullName: null, credits: 0, subscriptionStatus: 'canceled' });
      expect(user.erasedAt).toBeInstanceOf(Date);
      expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, person.userId))).toEqual([]);
      expect(await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.userId, person.userId))).toEqual([]);
      expect(existsSync(fileOf(ts, made.images[0].url))).toBe(false);

      // The session is over, the same cookie cannot act, and the password no longer signs in.
      expect((await person.client.get('/api/me')).status).toBe(401);
      expect((await person.client.post('/api/me/delete', { email: person.email, password: PASSWORD })).status).toBe(401);
      const signIn = await ts.client().post('/api/auth/sign-in/email', { email: person.email, password: 'correct-horse-1' });
      expect(signIn.status).toBe(401);
    });
  });
});

describe('delete account with Creem', () => {
  const apiKey = 'creem_test_0123456789';
  const products = { BASIC: 'prod_basic_1', STANDARD: 'prod_standard_1', PROFESSIONAL: 'prod_pro_1' };
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: Object.values(products) });
    ts = await startTestServer({ env: creemEnv({ url: creem.url, apiKey, webhookSecret, products }) });
  });
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  it('erases nothing while Creem refuses the cancellation, and says why; erases once Creem cancels', async () => {
    const person = await ts.signUp({ credits: 30 });
    const made = await generate(person.client);
    const sub = {
      id: `sub_${uid()}`,
      productId: products.STANDARD,
      customerId: `cust_${uid()}`,
      userId: person.userId,
      transactionId: `tran_${uid()}`,
    };
    const paid = signedWebhook(webhookSecret, 'subscription.paid', creemSubscription(sub));
    expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: paid.body, headers: paid.headers })).status).toBe(200);
    creem.addSubscription(sub);

    creem.refuseCancellations(400);
    const refused = await person.client.post('/api/me/delete', { email: person.email, password: PASSWORD });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({ code: 'subscription_not_cancelled', message: ACCOUNT_TEXTS.subscriptionNotCancelled });
    expect(creem.cancellations).toEqual([{ id: sub.id, body: { mode: 'immediate' } }]);
    expect(await (await person.client.get('/api/me')).json()).toMatchObject({ email: person.email, subscription_status: 'active' });
    expect(existsSync(fileOf(ts, made.images[0].url))).toBe(true);
    expect(
      await ts.rt.db
        .select()
        .from(generations)
        .where(and(eq(generations.userId, person.userId), eq(generations.status, 'ACTIVE'))),
    ).toHaveLength(1);

    creem.refuseCancellations(null);
    expect((await person.client.post('/api/me/delete', { email: person.email, password: PASSWORD })).status).toBe(204);
    expect(creem.cancellations).toHaveLength(2);
    const [user] = await ts.rt.db.select().from(users).where(eq(users.id, person.userId));
    expect(user.erasedAt).toBeInstanceOf(Date);
    expect(existsSync(fileOf(ts, made.images[0].url))).toBe(false);
    // Creem's subscription.canceled arrives afterwards and is recorded against the tombstone.
    const canceled = signedWebhook(
      webhookSecret,
      'subscription.canceled',
      creemSubscription({ ...sub, status: 'canceled', canceledAt: new Date() }),
    );
    expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: canceled.body, headers: canceled.headers })).status).toBe(
      200,
    );
  });

  it('cancels a second subscription whose cancellation failed when it was found, and takes one already cancelled as done', async () => {
    const deliver = async (type: string, object: Record<string, unknown>) => {
      const e = signedWebhook(webhookSecret, type, object);
      expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: e.body, headers: e.headers })).status).toBe(200);
    };
    /** A person who paid two checkouts (two tabs): the second subscription is kept as `duplicate`. */
    const twoSubscriptions = async (refuseAtDiscovery: boolean) => {
      const person = await ts.signUp();
      const customerId = `cust_${uid()}`;
      const [first, second] = [products.BASIC, products.STANDARD].map((productId) => ({
        id: `sub_${uid()}`,
        productId,
        customerId,
        userId: person.userId,
        transactionId: `tran_${uid()}`,
      }));
      for (const sub of [first!, second!]) creem.addSubscription(sub);
      await deliver('subscription.paid', creemSubscription(first!));
      creem.refuseCancellations(refuseAtDiscovery ? 400 : null);
      await deliver('subscription.paid', creemSubscription(second!));
      creem.refuseCancellations(null);
      const stored = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.id, second!.id));
      expect(stored[0]?.status).toBe('duplicate');
      return { person, first: first!, second: second! };
    };

    // Creem could not be reached when the second subscription was found: it would charge on after the account went.
    const unreached = await twoSubscriptions(true);
    expect((await unreached.person.client.post('/api/me/delete', { email: unreached.person.email, password: PASSWORD })).status).toBe(204);
    expect(creem.cancellations.filter((c) => c.id === unreached.second.id)).toHaveLength(2);
    expect(creem.cancellations.filter((c) => c.id === unreached.first.id)).toHaveLength(1);

    // Cancelled when found, its subscription.canceled not yet here: Creem refuses a second cancellation, which is no failure.
    const cancelled = await twoSubscriptions(false);
    expect((await cancelled.person.client.post('/api/me/delete', { email: cancelled.person.email, password: PASSWORD })).status).toBe(204);
    expect(creem.cancellations.filter((c) => c.id === cancelled.second.id)).toHaveLength(2);
    const [erased] = await ts.rt.db.select().from(users).where(eq(users.id, cancelled.person.userId));
    expect(erased?.erasedAt).toBeInstanceOf(Date);
  });

  it('cancels a training in progress when its character is deleted, with the usual refund', async () => {
    // A separate server whose trainer takes far longer than the test, so the training is still running.
    const slow = await startTestServer({ env: { ...PATIENT_VISION, TRAINING_DURATION_SECONDS: '3600', TRAINING_POLL_SECONDS: '0.05' } });
    try {
      const owner = await slow.signUp({ credits: 600 });
      const { archive, requestId } = await train(owner.client, 'Running');
      const running = (await listTrainings(owner.client)).find((t) => t.request_id === requestId)!;
      expect(running.status).toBe('IN_PROGRESS');
      expect((await (await owner.client.get('/api/me')).json()).credits).toBe(100);
      expect((await del(owner.client, `/api/trainings/${running.id}`)).status).toBe(204);
      expect((await (await owner.client.get('/api/me')).json()).credits).toBe(600);
      const [row] = await slow.rt.db.select().from(loraTrainings).where(eq(loraTrainings.id, running.id));
      expect(row).toMatchObject({ status: 'FAILED', error: CANCELLED_BY_DELETE });
      expect(row.deletedAt).toBeInstanceOf(Date);
      expect(row.deletedFiles).toMatchObject({ uploadUrl: archive, cancelled: true });
      // Cancelled and refunded: Undo cannot bring it back, and says why.
      const refusedUndo = await restoreCharacter(owner.client, running.id);
      expect(refusedUndo.status).toBe(410);
      expect(await refusedUndo.json()).toMatchObject({ code: 'restore_refused', message: CHARACTER_CANCELLED_NOT_RESTORABLE });
      expect((await listTrainings(owner.client)).map((t) => t.id)).not.toContain(running.id);
      // Its archive goes with the purge after the window.
      expect(existsSync(fileOf(slow, archive))).toBe(true);
      await deleteLapsed(slow, running.id);
      await purgeCharacters(slow);
      expect(existsSync(fileOf(slow, archive))).toBe(false);
      const refunds = await slow.rt.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.userId, owner.userId), eq(creditLedger.kind, 'refund')));
      expect(refunds).toHaveLength(1);
      // The person cancelled it: no 'training failed' mail for that.
      expect(
        await slow.rt.db
          .select()
          .from(mailOutbox)
          .where(eq(mailOutbox.dedupeKey, `training-failed:${running.id}`)),
      ).toEqual([]);
      // A second delete refunds nothing more.
      expect((await del(owner.client, `/api/trainings/${running.id}`)).status).toBe(204);
      expect((await (await owner.client.get('/api/me')).json()).credits).toBe(600);
    } finally {
      await slow.stop();
    }
  });
});
