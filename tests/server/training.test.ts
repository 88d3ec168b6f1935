import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { zipSync, type Zippable } from 'fflate';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainingView } from '@common/training.ts';
import { loraTrainings } from '../../server/db/schema.ts';
import { createFalTrainer } from '../../server/providers/inference/fal-trainer.ts';
import { parseBuiltinLora } from '../../server/providers/inference/builtin-lora.ts';
import { finishTraining } from '../../server/services/trainings.service.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import {
  FAST_TRAINING,
  listTrainings,
  trainingArchive,
  trainingArchiveOf,
  trainingEnded,
  trainingPayload,
  trainingPhotos,
  uploadArchive,
} from '../helpers/training.ts';
import { waitFor } from '../helpers/wait.ts';
import { spawnServerProcess } from '../helpers/server-process-control.ts';
import { onePersonPhotos, strangerPhoto } from '../helpers/likeness-photos.ts';
import { pngHeader, sceneWithoutFace } from '../helpers/photos.ts';
import {
  createScratchDatabase,
  sharedTestVision,
  startTestServer,
  testDatabases,
  TEST_AUTH_SECRET,
  type TestClient,
  type TestServer,
} from '../helpers/server.ts';
import { failingChecks, withExplicitVerdict } from '../helpers/vision.ts';

async function balance(client: TestClient): Promise<number> {
  return (await (await client.get('/api/me')).json()).credits;
}

describe.each(testDatabases())('character training (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database, env: FAST_TRAINING });
  });
  afterAll(async () => {
    await ts?.stop();
  });

  it('debits 500, trains with the built-in trainer, and the character is usable and visibly different', async () => {
    const { client, userId } = await ts.signUp({ credits: 620 });
    const url = await uploadArchive(client, await trainingArchive(5));
    const res = await client.post('/api/image/submit-lora-training', trainingPayload(url));
    expect(res.status, await res.clone().text()).toBe(200);
    const { request_id } = await res.json();
    expect(request_id).toEqual(expect.any(String));
    expect(await balance(client)).toBe(120);

    const done = await trainingEnded(client, request_id);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      character_name: 'Dana',
      trigger_word: 'danap',
      gender: 'female',
      hair_color: 'brown',
      error: null,
    });
    expect(done.lora_file_url).toBe(`/media/loras/${userId}/${done.id}.json`);
    const artefact = await client.get(done.lora_file_url!);
    expect(artefact.status).toBe(200);
    const lora = parseBuiltinLora(Buffer.from(await artefact.arrayBuffer()));
    expect(lora).toMatchObject({ characterName: 'Dana', triggerWord: 'danap', imageCount: 5 });
    expect(await balance(client)).toBe(120);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(120);

    // The create page lists it, and generating with it differs from generating without it.
    const characters = (await (await client.get('/api/characters')).json()).items;
    expect(characters.map((c: { id: string }) => c.id)).toContain(done.id);
    const generate = async (loras: { path: string; scale: number }[]) => {
      const r = await client.post(
        '/api/image/generate-image',
        generationRequestBody({ prompt: 'a portrait of danap in a park', loras, seed: 7 }),
      );
      expect(r.status, await r.clone().text()).toBe(200);
      const body = await r.json();
      return Buffer.from(await (await client.get(body.images[0].url)).arrayBuffer());
    };
    const withCharacter = await generate([{ path: done.lora_file_url!, scale: 1 }]);
    const without = await generate([]);
    expect(withCharacter.equals(without)).toBe(false);
  });

  it('a double submit (three at once) is one training and one debit', async () => {
    const { client } = await ts.signUp({ credits: 1200 });
    const url = await uploadArchive(client, await trainingArchive(4));
    const submit = (name = 'Dana') => client.post('/api/image/submit-lora-training', trainingPayload(url, { character_name: name }));
    const answers = await Promise.all([submit(), submit(), submit()]);
    for (const res of answers) expect(res.status, await res.clone().text()).toBe(200);
    const ids = new Set(await Promise.all(answers.map(async (r) => (await r.json()).request_id)));
    expect(ids.size).toBe(1);
    expect(await balance(client)).toBe(700);
    expect((await listTrainings(client)).filter((t) => t.character_name === 'Dana')).toHaveLength(1);
    // Another name for the same photos is another character.
    expect((await submit('Dana B')).status).toBe(200);
    expect(await balance(client)).toBe(200);
  });

  it('rejects archives that are not 4–50 plain photos, before charging', async () => {
    const { client } = await ts.signUp({ credits: 500 });
    const [a, b, c, d] = await trainingPhotos(4);
    const cases: [string, Zippable, RegExp][] = [
      [
        'a non-image',
        { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, 'notes.jpg': new TextEncoder().encode('not a photo at all') },
        /not a photo/,
      ],
      ['too few photos', { '1.jpg': a!, '2.jpg': b!, '3.jpg': c! }, /at least 4 photos/],
      ['a zip bomb', { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, '4.jpg': [new Uint8Array(20 * 1024 * 1024), { level: 9 }] }, /zip bomb/],
      ['a path traversal', { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, '../../etc/4.jpg': d! }, /unsafe path/],
      ['an absolute path', { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, '/tmp/4.jpg': d! }, /unsafe path/],
      [
        'a symbolic link',
        {
          '1.jpg': a!,
          '2.jpg': b!,
          '3.jpg': c!,
          '4.jpg': [new TextEncoder().encode('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
        },
        /symbolic link/,
      ],
      // Tiny files whose headers claim 16000×16000 pixels: refused from the header, never decoded.
      [
        'a decompression bomb',
        { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, '4.png': Buffer.concat([pngHeader(16_000, 16_000), Buffer.alloc(64)]) },
        /^4\.png: File is too large \(max 50 megapixels\)\.$/,
      ],
      [
        'an unreadable photo',
        { '1.jpg': a!, '2.jpg': b!, '3.jpg': c!, '4.jpg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(64, 0x41)]) },
        /^4\.jpg: Invalid file type/,
      ],
    ];
    for (const [name, files, message] of cases) {
      const url = await uploadArchive(client, zipSync(files));
      const res = await client.post('/api/image/submit-lora-training', trainingPayload(url));
      expect(res.status, name).toBe(400);
      expect((await res.json()).message, name).toMatch(message);
    }
    expect(await balance(client)).toBe(500);
    expect(await listTrainings(client)).toEqual([]);
  });

  it('answers 402 when credits are short, and validates the form', async () => {
    const { client } = await ts.signUp({ credits: 499 });
    const url = await uploadArchive(client, await trainingArchive(4));
    const short = await client.post('/api/image/submit-lora-training', trainingPayload(url));
    expect(short.status).toBe(402);
    // Refused before the archive is unpacked and its photos checked: that work is not done for someone who cannot pay.
    const broken = await uploadArchive(client, zipSync({ '1.jpg': new TextEncoder().encode('not a photo') }));
    const unpaid = await client.post('/api/image/submit-lora-training', trainingPayload(broken));
    expect(unpaid.status).toBe(402);
    expect(await unpaid.json()).toMatchObject({ code: 'insufficient_credits', message: 'This needs 500 credits; you have 499.' });
    const blank = await client.post('/api/image/submit-lora-training', trainingPayload(url, { character_name: '   ' }));
    expect(blank.status).toBe(400);
    expect((await blank.json()).message).toMatch('Please enter a character name');
    const badWord = await client.post('/api/image/submit-lora-training', trainingPayload(url, { trigger_word: 'Dana1' }));
    expect(badWord.status).toBe(400);
    expect(await balance(client)).toBe(499);
    expect(await listTrainings(client)).toEqual([]);
  });

  it('refuses photos that do not show one person, naming them, before charging', async () => {
    const { client } = await ts.signUp({ credits: 500 });
    const [a, b, c] = await trainingPhotos(3);
    const pair = await sharp({ create: { width: 340, height: 180, channels: 3, background: '#202020' } })
      .composite([
        { input: a!, left: 10, top: 10 },
        { input: b!, left: 170, top: 10 },
      ])
      .jpeg()
      .toBuffer();
    const url = await uploadArchive(client, trainingArchiveOf([a!, b!, c!, await sceneWithoutFace(), pair]));
    const res = await client.post('/api/image/submit-lora-training', trainingPayload(url));
    expect(res.status).toBe(422);
    expect((await res.json()).message).toBe('At least 4 photos must show exactly one face; only 3 do. Add photos of the person alone.');
    expect(await balance(client)).toBe(500);
    expect(await listTrainings(client)).toEqual([]);
  });

  it('keeps trainings private: no one sees or uses another user’s archive, training or LoRA', async () => {
    const owner = await ts.signUp({ credits: 500 });
    const other = await ts.signUp({ credits: 1000 });
    const url = await uploadArchive(owner.client, await trainingArchive(4));
    const stolen = await other.client.post('/api/image/submit-lora-training', trainingPayload(url));
    expect(stolen.status).toBe(403);
    expect(await balance(other.client)).toBe(1000);

    const { request_id } = await (
      await owner.client.post('/api/image/submit-lora-training', trainingPayload(url, { trigger_word: '' }))
    ).json();
    const done = await trainingEnded(owner.client, request_id);
    expect(done.status).toBe('COMPLETED');
    expect(done.trigger_word).toBeNull();
    expect(await listTrainings(other.client)).toEqual([]);
    expect((await other.client.get(done.lora_file_url!)).status).toBe(404);
    const use = await other.client.post(
      '/api/image/generate-image',
      generationRequestBody({ prompt: 'someone else', loras: [{ path: done.lora_file_url, scale: 1 }], seed: 1 }),
    );
    expect(use.status).toBe(403);
    expect(await balance(other.client)).toBe(1000);
  });
});

describe.each(testDatabases())('training failures and restarts (%s)', (database) => {
  it('fails a training that runs past the time limit and refunds it exactly once', async () => {
    // 3 s of built-in training against a limit of 0.6 s.
    const ts = await startTestServer({
      database,
      env: { ...FAST_TRAINING, TRAINING_DURATION_SECONDS: '3', TRAINING_TIMEOUT_MINUTES: '0.01' },
    });
    try {
      const { client, userId } = await ts.signUp({ credits: 500 });
      const url = await uploadArchive(client, await trainingArchive(4));
      const { request_id } = await (await client.post('/api/image/submit-lora-training', trainingPayload(url))).json();
      expect(await balance(client)).toBe(0);
      const done = await trainingEnded(client, request_id);
      expect(done.status).toBe('FAILED');
      expect(done.error).toMatch(/did not finish within 1 minute.*500 credits have been refunded/);
      expect(done.lora_file_url).toBeNull();
      expect(await balance(client)).toBe(500);
      // A second end (a late webhook, a second runner) changes nothing.
      expect(await finishTraining(ts.rt, done.id, { status: 'FAILED', error: 'again' })).toBeUndefined();
      expect(await finishTraining(ts.rt, done.id, { status: 'COMPLETED', loraFileUrl: '/media/x', result: {} })).toBeUndefined();
      expect(await balance(client)).toBe(500);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(500);
    } finally {
      await ts.stop();
    }
  });

  it('finishes a training after the server is stopped in the middle and started again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-training-restart-'));
    const scratch = database === 'postgres' ? await createScratchDatabase() : undefined;
    const start = (env: Record<string, string>) =>
      startTestServer({ database, dataDir, databaseUrl: scratch?.url, env: { ...FAST_TRAINING, ...env } });
    try {
      // The built-in trainer takes 2 s; the first server is stopped once its runner has scheduled the job.
      const first = await start({ TRAINING_DURATION_SECONDS: '2' });
      const { client, email } = await first.signUp({ credits: 500 });
      const url = await uploadArchive(client, await trainingArchive(4));
      const { request_id } = await (await client.post('/api/image/submit-lora-training', trainingPayload(url))).json();
      await waitFor('the runner to take the job', async () => {
        const [row] = await first.rt.db.select().from(loraTrainings).where(eq(loraTrainings.requestId, request_id));
        return row && row.nextRunAt.getTime() >= row.createdAt.getTime() + 1900;
      });
      const cookie = client.cookieHeader();
      await first.stop();

      const second = await start({ TRAINING_DURATION_SECONDS: '2' });
      try {
        const again = second.client();
        const headers = { cookie, origin: second.url };
        const done = await waitFor('the training to complete after the restart', async () => {
          const res = await again.fetch('/api/trainings', { headers });
          const items: TrainingView[] = (await res.json()).items;
          return items.find((t) => t.request_id === request_id && t.status === 'COMPLETED');
        });
        expect(done.lora_file_url).toMatch(/^\/media\/loras\//);
        const me = await (await again.fetch('/api/me', { headers })).json();
        expect(me.email).toBe(email);
        expect(me.credits).toBe(0);
      } finally {
        await second.stop();
      }
    } finally {
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('finishes a training after the server process is killed in the middle and started again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-training-kill-'));
    const scratch = database === 'postgres' ? await createScratchDatabase() : undefined;
    const env = { ...FAST_TRAINING, TRAINING_DURATION_SECONDS: '3' };
    const start = () => startTestServer({ database, dataDir, databaseUrl: scratch?.url, env });
    try {
      // An account with credits and an uploaded archive, made on a first server.
      const setup = await start();
      const { client } = await setup.signUp({ credits: 500 });
      const url = await uploadArchive(client, await trainingArchive(4));
      const cookie = client.cookieHeader();
      await setup.stop();

      // A server process takes the training, and is killed without warning while it runs.
      const server = await spawnServerProcess({
        ...env,
        DATA_DIR: dataDir,
        ...(scratch ? { DATABASE_URL: scratch.url, AUTH_SECRET: TEST_AUTH_SECRET } : {}),
      });
      const res = await fetch(`${server.url}/api/image/submit-lora-training`, {
        method: 'POST',
        headers: { cookie, origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify(trainingPayload(url)),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const { request_id } = await res.json();
      await new Promise((r) => setTimeout(r, 500));
      server.kill('SIGKILL');
      await server.exited;

      const second = await start();
      try {
        const headers = { cookie, origin: second.url };
        const done = await waitFor('the training to complete after the kill', async () => {
          const items: TrainingView[] = (await (await second.client().fetch('/api/trainings', { headers })).json()).items;
          return items.find((t) => t.request_id === request_id && t.status === 'COMPLETED');
        });
        expect(done.lora_file_url).toMatch(/^\/media\/loras\//);
        expect((await (await second.client().fetch('/api/me', { headers })).json()).credits).toBe(0);
      } finally {
        await second.stop();
      }
    } finally {
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000); // a whole server process starts and loads the image models to check the photos
});

describe('fal trainer (against the fake fal)', () => {
  let fal: FakeFal;
  let ts: TestServer;
  let proxy: Server;

  beforeAll(async () => {
    fal = await startFakeFal({ latencyMs: 40 });
    // fal reaches the server at PUBLIC_URL; the test server's port is only known once it runs, so a
    // forwarder on a fixed port stands in for the public address.
    let target = '';
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
        string,
        string
      >;
      const answer = await fetch(target + req.url, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res
        .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
        .end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const publicUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    ts = await startTestServer({
      env: { ...FAST_TRAINING, PUBLIC_URL: publicUrl, FAL_KEY: fal.key, FAL_WEBHOOK_JWKS_URL: fal.jwksUrl, TRAINING_POLL_SECONDS: '0.05' },
      runtime: { falTrainer: createFalTrainer({ credentials: fal.key, fetch: fal.fetch }), falFetch: fal.fetch },
    });
    target = ts.url;
  });
  afterAll(async () => {
    await ts?.stop();
    await fal?.stop();
    await new Promise((r) => proxy?.close(r));
  });

  async function submit(credits = 500, extra: Record<string, unknown> = {}) {
    const user = await ts.signUp({ credits });
    const url = await uploadArchive(user.client, await trainingArchive(4));
    const res = await user.client.post('/api/image/submit-lora-training', trainingPayload(url, extra));
    expect(res.status, await res.clone().text()).toBe(200);
    const { request_id } = await res.json();
    const row = await waitFor('fal to get the job', async () => {
      const [r] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.requestId, request_id));
      return r?.providerRequestId ? r : undefined;
    });
    return { ...user, requestId: request_id as string, falId: row.providerRequestId!, trainingId: row.id };
  }

  it('submits the contract payload with the webhook, and the webhook completes the training', async () => {
    const { client, requestId, falId } = await submit();
    const request = fal.requests.get(falId)!;
    expect(request.input).toEqual({
      images_data_url: expect.stringMatching(/^http/),
      trigger_word: 'danap',
      create_masks: true,
      steps: 1000,
      is_style: false,
    });
    expect(request.webhookUrl).toMatch(/\/api\/webhooks\/fal$/);
    await fal.settled(falId);
    const done = await trainingEnded(client, requestId);
    expect(done.status).toBe('COMPLETED');
    expect(done.lora_file_url).toMatch(/pytorch_lora_weights\.safetensors$/);
    expect(fal.webhooks.find((w) => w.requestId === falId)?.status).toBe(200);
    expect((done.result as { stored_copy: string }).stored_copy).toMatch(/^\/media\/loras\/.+\.safetensors$/);
    expect(await balance(client)).toBe(0);
  });

  it('a failed fal run fails the training and refunds it once, even when the webhook is replayed', async () => {
    fal.control.failNext({ endpoint: 'fal-ai/flux-lora-fast-training', message: 'Not enough faces found' });
    const { client, requestId, falId, userId } = await submit();
    const done = await trainingEnded(client, requestId);
    expect(done.status).toBe('FAILED');
    expect(done.error).toMatch(/Not enough faces found.*refunded/);
    expect(await balance(client)).toBe(500);
    const replay = await fal.control.sendWebhook(falId);
    expect(replay.status).toBe(200);
    expect(await balance(client)).toBe(500);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(500);
  });

  it('finds the result by polling when the webhook is lost', async () => {
    fal.control.dropWebhooks(1);
    const { client, requestId, falId } = await submit();
    await fal.settled(falId);
    expect(fal.webhooks.some((w) => w.requestId === falId)).toBe(false);
    const done = await trainingEnded(client, requestId);
    expect(done.status).toBe('COMPLETED');
  });

  it('refuses a forged or tampered webhook with 401 and changes nothing', async () => {
    fal.control.stallNext({ endpoint: 'fal-ai/flux-lora-fast-training' });
    const { client, requestId, falId } = await submit();
    const forged = await fal.control.sendWebhook(falId, {
      body: { request_id: falId, status: 'ERROR', error: 'forged', payload: null },
      forged: true,
    });
    expect(forged.status).toBe(401);
    const stale = await fal.control.sendWebhook(falId, {
      body: { request_id: falId, status: 'ERROR', error: 'stale', payload: null },
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(stale.status).toBe(401);
    const bare = await fetch(`${ts.url}/api/webhooks/fal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: falId, status: 'ERROR', error: 'x' }),
    });
    expect(bare.status).toBe(401);
    const [t] = (await listTrainings(client)).filter((x) => x.request_id === requestId);
    expect(t!.status).toBe('IN_PROGRESS');
    expect(await balance(client)).toBe(0);
    await fal.control.release(falId);
    expect((await trainingEnded(client, requestId)).status).toBe('COMPLETED');
  });
});

describe('the submission re-checks photos and never trusts the page', () => {
  it('refuses an archive with a photo the classifier finds NSFW, naming it, and charges nothing', async () => {
    const files = await trainingPhotos(5);
    const flagged = files[2]!;
    const sameBytes = (image: Uint8Array) => Buffer.compare(Buffer.from(image), flagged) === 0;
    const ts = await startTestServer({ env: FAST_TRAINING, runtime: { vision: withExplicitVerdict(sharedTestVision(), sameBytes) } });
    try {
      const { client, userId } = await ts.signUp({ credits: 500 });
      const res = await client.post(
        '/api/image/submit-lora-training',
        trainingPayload(await uploadArchive(client, trainingArchiveOf(files))),
      );
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        code: 'photos_refused',
        message: 'Photo 3 (photo-3.jpg) is not allowed: NSFW content is prohibited. Remove it to continue.',
        requestId: res.headers.get('x-request-id'),
      });
      expect(await balance(client)).toBe(500);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(500);
      expect(await listTrainings(client)).toEqual([]);
      // Without that photo the same person trains.
      const ok = await client.post(
        '/api/image/submit-lora-training',
        trainingPayload(await uploadArchive(client, trainingArchiveOf(files.filter((f) => f !== flagged)))),
      );
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(await balance(client)).toBe(0);
    } finally {
      await ts.stop();
    }
  });

  it('records each photo’s verdict with the training, a face that most photos do not match as the page words it', async () => {
    const ts = await startTestServer({ env: FAST_TRAINING });
    try {
      const [one, two, three] = await onePersonPhotos();
      const stranger = await strangerPhoto();
      const { client, userId } = await ts.signUp({ credits: 500 });
      const res = await client.post(
        '/api/image/submit-lora-training',
        trainingPayload(await uploadArchive(client, trainingArchiveOf([one!, stranger, two!, three!]))),
      );
      // Another person only warns: the training goes ahead and is paid for.
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await balance(client)).toBe(0);
      const [row] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.userId, userId));
      expect(row!.photoChecks).toEqual([
        { name: 'photo-1.jpg', badge: 'Good', problems: [], faces: 1 },
        { name: 'photo-2.jpg', badge: 'Not the same person', problems: ['different-person'], faces: 1 },
        { name: 'photo-3.jpg', badge: 'Good', problems: [], faces: 1 },
        { name: 'photo-4.jpg', badge: 'Good', problems: [], faces: 1 },
      ]);
    } finally {
      await ts.stop();
    }
  });

  it('charges nothing when the photos cannot be checked', async () => {
    const ts = await startTestServer({ env: FAST_TRAINING, runtime: { vision: failingChecks(sharedTestVision()) } });
    try {
      const { client } = await ts.signUp({ credits: 500 });
      const res = await client.post(
        '/api/image/submit-lora-training',
        trainingPayload(await uploadArchive(client, await trainingArchive(4))),
      );
      expect(res.status).toBe(503);
      expect((await res.json()).message).toBe(
        'Your photos could not be checked right now. Nothing was charged; please try again in a moment.',
      );
      expect(await balance(client)).toBe(500);
      expect(await listTrainings(client)).toEqual([]);
    } finally {
      await ts.stop();
    }
  });
});
