import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { editRequestSchema, upscaleRequestSchema } from '@common/finishing.ts';
import { generationRequestSchema } from '@common/generation.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import { insufficientCredits } from '../../server/domain/errors.ts';
import { createLogger } from '../../server/logger.ts';
import { createMetrics } from '../../server/ops/metrics.ts';
import {
  ProviderError,
  type CallOptions,
  type EditInput,
  type GenerateInput,
  type GenerateOutput,
  type ImageFinisher,
  type ImageGenerator,
  type UpscaleInput,
} from '../../server/providers/inference/index.ts';
import { createLocalStorage } from '../../server/providers/storage/local.ts';
import { mediaUrl, type StorageProvider } from '../../server/providers/storage/index.ts';
import type { GenerationRow, GenerationWithCharacter } from '../../server/repositories/generations.repository.ts';
import { createFinishingService } from '../../server/services/finishing.service.ts';
import { createGeneratedImages } from '../../server/services/generated-images.ts';
import { createGenerationsService } from '../../server/services/generations.service.ts';
import { createPaidCallRunner, paidJobDebitKey, type PaidCallStore } from '../../server/services/paid-jobs.ts';
import { generationRequestBody } from '../helpers/generation.ts';

/**
 * The generation and finishing services on their own: the paid-call runner over a stubbed store (the
 * repositories' statements kept in memory: a balance, a ledger, the jobs and the saved rows), stubbed image
 * engines, and real file storage in a temporary folder. What each call charges, what a failure refunds and what
 * it tells the user; the same rules tests/server/generate.test.ts and finishing.test.ts check over HTTP.
 */

const USER = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const folders: string[] = [];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } })
    .jpeg()
    .toBuffer();

type Ledger = { delta: number; reason: string; key: string }[];

/** The repositories' side of a paid call, in memory: what startPaidJob, finishWithGeneration and failPaidJob do. */
function stubStore(credits: number, sources: GenerationWithCharacter[] = []) {
  const state = {
    credits,
    ledger: [] as Ledger,
    jobs: new Map<string, { status: 'PENDING' | 'SUCCEEDED' | 'FAILED'; error?: string; input: unknown }>(),
    saved: [] as GenerationRow[],
    starts: 0,
  };
  const owned = (userId: string, id: string) =>
    sources.find((s) => s.generation.id === id && s.generation.userId === userId && s.generation.status === 'ACTIVE');
  const store: PaidCallStore = {
    async start(job, source) {
      state.starts++;
      const found = source ? owned(job.userId, source.id) : undefined;
      if (source && !found) return { outcome: 'no_source', source: null };
      if (found && source?.maxSide && Math.max(found.generation.width, found.generation.height) > source.maxSide) {
        return { outcome: 'too_large', source: found };
      }
      if (state.credits < job.cost) throw insufficientCredits(job.cost, state.credits);
      state.credits -= job.cost;
      state.ledger.push({ delta: -job.cost, reason: job.reason, key: paidJobDebitKey(job) });
      state.jobs.set(job.id, { status: 'PENDING', input: job.input });
      return { outcome: 'started', source: found ?? null };
    },
    async finish(job, row) {
      const stored = state.jobs.get(job.id);
      if (stored?.status !== 'PENDING') return undefined;
      stored.status = 'SUCCEEDED';
      const saved = {
        style: null,
        isFavorite: false,
        createdAt: new Date(),
        sourceId: null,
        derivation: null,
        upscaleFactor: null,
        editStrength: null,
        deletedAt: null,
        filesRemovedAt: null,
        shootId: null,
        likeness: null,
        likenessVerdict: null,
        likenessChecks: 0,
        likenessDueAt: null,
        ...row,
      } as GenerationRow;
      state.saved.push(saved);
      return saved;
    },
    async fail(job, reason, refundReason) {
      const stored = state.jobs.get(job.id);
      if (stored?.status !== 'PENDING') return false;
      stored.status = 'FAILED';
      stored.error = reason;
      state.credits += job.cost;
      state.ledger.push({ delta: job.cost, reason: refundReason, key: `refund:${paidJobDebitKey(job)}` });
      return true;
    },
    accountErased: async () => false,
    ownedSource: async (userId, id) => owned(userId, id),
  };
  return { store, state };
}

/** An engine whose next answer each test decides; it records what it was asked. */
function stubEngine() {
  const calls: { kind: 'generate' | 'upscale' | 'edit'; input: GenerateInput | UpscaleInput | EditInput; opts?: CallOptions }[] = [];
  let answer: (input: { width: number; height: number }, opts?: CallOptions) => Promise<GenerateOutput> = async ({ width, height }) => ({
    images: [{ data: await jpeg(width, height), width, height, contentType: 'image/jpeg', nsfw: false }],
    seed: 4242,
  });
  const generator: ImageGenerator = {
    name: 'builtin',
    generate(input, opts) {
      calls.push({ kind: 'generate', input, opts });
      return answer(input.imageSize, opts);
    },
  };
  const finisher: ImageFinisher = {
    name: 'builtin',
    upscale(input, opts) {
      calls.push({ kind: 'upscale', input, opts });
      return answer({ width: input.image.width * input.factor, height: input.image.height * input.factor }, opts);
    },
    edit(input, opts) {
      calls.push({ kind: 'edit', input, opts });
      return answer(input.imageSize, opts);
    },
  };
  return { generator, finisher, calls, answerWith: (next: typeof answer) => (answer = next) };
}

type SourceSpec = { userId?: string; width?: number; stored?: boolean; likeness?: number };

/** The services over a stubbed store holding `credits` and the saved generations `specs` describe. */
async function setUp(credits: number, specs: SourceSpec[] = []) {
  const folder = mkdtempSync(join(tmpdir(), 'likeness-paid-services-'));
  folders.push(folder);
  const storage = createLocalStorage(folder);
  const sources = await Promise.all(specs.map((spec) => source(storage, spec)));
  const { store, state } = stubStore(credits, sources);
  const engine = stubEngine();
  const leases = {
    held: new Set<string>(),
    hold: (_: string, id: string) => void leases.held.add(id),
    drop: (_: string, id: string) => void leases.held.delete(id),
  };
  const runner = createPaidCallRunner({
    store,
    images: createGeneratedImages({ storage, logger: createLogger('silent') }),
    logger: createLogger('silent'),
    metrics: createMetrics(),
    leases: leases as never,
    concurrency: 2,
  });
  const generations = createGenerationsService({ db: undefined as never, generator: engine.generator, runner });
  const finishing = createFinishingService({ db: undefined as never, storage, finisher: engine.finisher, runner, store });
  const sourceKeys = new Set(specs.map((_, i) => sources[i].generation.imageUrl.replace('/media/', '')));
  /** The images this test's calls stored (the sources' own files aside). */
  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const { key } of storage.list('generations/')) if (!sourceKeys.has(key)) keys.push(key);
    return keys.sort();
  };
  return { sources, state, engine, leases, generations, finishing, storedKeys };
}

/** A saved generation of `userId` whose image is in `storage` (or not, when `stored` is false). */
async function source(storage: StorageProvider, opts: SourceSpec): Promise<GenerationWithCharacter> {
  const id = crypto.randomUUID();
  const width = opts.width ?? 256;
  const key = `generations/${opts.userId ?? USER}/${id}.jpeg`;
  if (opts.stored !== false) await storage.put(key, await jpeg(width, width), 'image/jpeg');
  return {
    generation: {
      id,
      userId: opts.userId ?? USER,
      prompt: 'a lighthouse on a cliff at dusk',
      style: null,
      width,
      height: width,
      outputFormat: 'jpeg',
      imageUrl: mediaUrl(key),
      loraId: null,
      loraScale: null,
      seed: '77',
      numInferenceSteps: 28,
      guidanceScale: 3.5,
      status: 'ACTIVE',
      isFavorite: false,
      createdAt: new Date(),
      sourceId: null,
      derivation: null,
      upscaleFactor: null,
      editStrength: null,
      deletedAt: null,
      filesRemovedAt: null,
      shootId: null,
      likeness: opts.likeness ?? null,
      likenessVerdict: opts.likeness ? 'strong' : null,
      likenessChecks: 0,
      likenessDueAt: null,
    } as GenerationRow,
    character: null,
  };
}

const generateRequest = (overrides: Record<string, unknown> = {}) =>
  generationRequestSchema.parse(generationRequestBody({ seed: 9, ...overrides }));
const editRequest = (sourceId: string) =>
  editRequestSchema.parse(generationRequestBody({ prompt: 'the same cliff in snow', seed: 11, source_id: sourceId, strength: 0.55 }));

describe('the generation service (stubbed store)', () => {
  it('charges exactly one generation, renders the request, stores the image and saves the row with the job', async () => {
    const ctx = await setUp(25);
    const answer = await ctx.generations.create(USER, generateRequest());

    expect(ctx.state.credits).toBe(25 - CREDIT_COSTS.generation);
    expect(ctx.state.ledger).toEqual([
      { delta: -CREDIT_COSTS.generation, reason: 'Image generation', key: expect.stringMatching(/^generation:/) },
    ]);
    const [job] = [...ctx.state.jobs.values()];
    expect(job.status).toBe('SUCCEEDED');
    expect(ctx.engine.calls).toHaveLength(1);
    expect(ctx.engine.calls[0].input).toMatchObject({
      prompt: 'a lighthouse on a cliff at dusk',
      seed: 9,
      imageSize: { width: 512, height: 512 },
    });

    const [saved] = ctx.state.saved;
    expect(saved).toMatchObject({
      userId: USER,
      prompt: 'a lighthouse on a cliff at dusk',
      seed: '4242',
      width: 512,
      height: 512,
      status: 'ACTIVE',
    });
    expect(await ctx.storedKeys()).toEqual([`generations/${USER}/${saved.id}.jpeg`]);
    expect(answer.images).toEqual([{ url: saved.imageUrl, width: 512, height: 512, content_type: 'image/jpeg' }]);
    expect(answer.generation.id).toBe(saved.id);
    expect(answer.seed).toBe(4242);
    expect(ctx.leases.held.size).toBe(0);
  });

  it('refunds the whole charge once and keeps no image when the provider fails, saying so in fixed words', async () => {
    const ctx = await setUp(25);
    ctx.engine.answerWith(async () => {
      throw new ProviderError('fal answered HTTP 500: check FAL_KEY', 'failed', 500);
    });
    const failure = ctx.generations.create(USER, generateRequest());
    await expect(failure).rejects.toMatchObject({
      status: 502,
      code: 'generation_failed',
      message: `The image could not be created. Your ${CREDIT_COSTS.generation} credits were refunded; please try again.`,
    });
    expect(ctx.state.credits).toBe(25);
    const [debit, refund] = ctx.state.ledger;
    expect(refund).toEqual({ delta: CREDIT_COSTS.generation, reason: 'Refund: image generation failed', key: `refund:${debit.key}` });
    expect(ctx.state.ledger).toHaveLength(2);
    expect([...ctx.state.jobs.values()]).toEqual([
      expect.objectContaining({ status: 'FAILED', error: 'fal answered HTTP 500: check FAL_KEY' }),
    ]);
    expect(ctx.state.saved).toEqual([]);
    expect(await ctx.storedKeys()).toEqual([]);
    expect(ctx.leases.held.size).toBe(0);
  });

  it('refunds a flagged image without storing it, and a provider timeout, each in its own words', async () => {
    const ctx = await setUp(25);
    ctx.engine.answerWith(async ({ width, height }) => ({
      images: [{ data: await jpeg(width, height), width, height, contentType: 'image/jpeg', nsfw: true }],
      seed: 1,
    }));
    await expect(ctx.generations.create(USER, generateRequest())).rejects.toMatchObject({
      status: 422,
      code: 'nsfw_content',
      message: `The image was flagged by the safety checker and was not saved. Your ${CREDIT_COSTS.generation} credits were refunded; please try a different prompt.`,
    });
    expect(await ctx.storedKeys()).toEqual([]);
    ctx.engine.answerWith(async () => {
      throw new ProviderError('deadline', 'timeout');
    });
    await expect(ctx.generations.create(USER, generateRequest())).rejects.toMatchObject({
      status: 504,
      code: 'generation_timeout',
      message: `Creating the image took too long. Your ${CREDIT_COSTS.generation} credits were refunded; please try again.`,
    });
    expect(ctx.state.credits).toBe(25);
    const cost = CREDIT_COSTS.generation;
    expect(ctx.state.ledger.map((l) => l.delta)).toEqual([-cost, cost, -cost, cost]);
  });

  it('refuses a request it cannot pay for before calling the provider', async () => {
    const ctx = await setUp(CREDIT_COSTS.generation - 1);
    await expect(ctx.generations.create(USER, generateRequest())).rejects.toMatchObject({ status: 402, code: 'insufficient_credits' });
    expect(ctx.engine.calls).toEqual([]);
    expect(ctx.state.ledger).toEqual([]);
  });

  it('refunds a call cut short by the shutdown and tells its user the server restarted', async () => {
    const ctx = await setUp(25);
    ctx.engine.answerWith(
      (_, opts) =>
        new Promise((_resolve, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    );
    const call = ctx.generations.create(USER, generateRequest());
    await expect.poll(() => ctx.generations.inFlight()).toBe(1);
    ctx.generations.abortAll();
    await expect(call).rejects.toMatchObject({
      status: 503,
      code: 'server_restarting',
      message: `The server restarted while creating your image. Your ${CREDIT_COSTS.generation} credits were refunded; please try again.`,
    });
    expect(ctx.state.credits).toBe(25);
    await expect(ctx.generations.create(USER, generateRequest())).rejects.toMatchObject({ status: 503, code: 'server_restarting' });
  });
});

describe('the finishing service (stubbed store)', () => {
  it.each([2, 4] as const)(
    'upscales %i×: charges that factor exactly once, renders the stored source and links the new row to it',
    async (factor) => {
      const ctx = await setUp(30, [{ likeness: 81 }]);
      const [original] = ctx.sources;
      const { state } = ctx;
      const answer = await ctx.finishing.upscale(USER, upscaleRequestSchema.parse({ generation_id: original.generation.id, factor }));

      const cost = factor === 2 ? CREDIT_COSTS.upscale2x : CREDIT_COSTS.upscale4x;
      expect(state.credits).toBe(30 - cost);
      expect(state.ledger).toEqual([{ delta: -cost, reason: `Image upscale ${factor}×`, key: expect.stringMatching(/^generation:/) }]);
      const [call] = ctx.engine.calls;
      expect(call.kind).toBe('upscale');
      expect(call.input).toMatchObject({
        factor,
        seed: 77,
        prompt: original.generation.prompt,
        image: { width: 256, height: 256, contentType: 'image/jpeg' },
      });
      expect((await sharp((call.input as UpscaleInput).image.data).metadata()).width).toBe(256);
      expect(state.saved[0]).toMatchObject({
        sourceId: original.generation.id,
        derivation: 'upscale',
        upscaleFactor: factor,
        width: 256 * factor,
        likeness: 81,
        likenessVerdict: 'strong',
        seed: '77',
      });
      expect(answer.generation.source).toMatchObject({ id: original.generation.id, kind: 'upscale', factor });
    },
  );

  it('charges a double-clicked upscale once: both calls get the one answer', async () => {
    const ctx = await setUp(30, [{}]);
    const [original] = ctx.sources;
    const { state } = ctx;
    const request = upscaleRequestSchema.parse({ generation_id: original.generation.id, factor: 2 });
    const [a, b] = await Promise.all([ctx.finishing.upscale(USER, request), ctx.finishing.upscale(USER, request)]);
    expect(a).toBe(b);
    expect(state.credits).toBe(30 - CREDIT_COSTS.upscale2x);
    expect(ctx.engine.calls).toHaveLength(1);
  });

  it('refunds an upscale whose source file is gone, without calling the provider', async () => {
    const ctx = await setUp(30, [{ stored: false }]);
    const [original] = ctx.sources;
    const { state } = ctx;
    await expect(
      ctx.finishing.upscale(USER, upscaleRequestSchema.parse({ generation_id: original.generation.id, factor: 4 })),
    ).rejects.toMatchObject({
      status: 410,
      code: 'source_missing',
      message: `The original file of this image is no longer stored, so it cannot be upscaled. Your ${CREDIT_COSTS.upscale4x} credits were refunded.`,
    });
    expect(state.credits).toBe(30);
    expect(state.ledger.map((l) => [l.delta, l.reason])).toEqual([
      [-CREDIT_COSTS.upscale4x, 'Image upscale 4×'],
      [CREDIT_COSTS.upscale4x, 'Refund: image upscale 4× failed'],
    ]);
    expect(ctx.engine.calls).toEqual([]);
  });

  it("refuses, charging nothing, another user's image and one too large for the factor", async () => {
    const ctx = await setUp(30, [{ userId: OTHER }, { width: 1536 }]);
    const [theirs, large] = ctx.sources;
    const { state } = ctx;
    await expect(
      ctx.finishing.upscale(USER, upscaleRequestSchema.parse({ generation_id: theirs.generation.id, factor: 2 })),
    ).rejects.toMatchObject({
      status: 404,
      message: 'That image is not one of your generations, or it was deleted.',
    });
    await expect(ctx.finishing.edit(USER, editRequest(theirs.generation.id))).rejects.toMatchObject({ status: 404 });
    await expect(
      ctx.finishing.upscale(USER, upscaleRequestSchema.parse({ generation_id: large.generation.id, factor: 4 })),
    ).rejects.toMatchObject({
      status: 422,
      code: 'upscale_too_large',
    });
    expect(state.ledger).toEqual([]);
    expect(ctx.engine.calls).toEqual([]);
  });

  it('edits: charges an edit exactly, re-renders the stored source with the new prompt and strength, and refunds a failure', async () => {
    const ctx = await setUp(25, [{}]);
    const [original] = ctx.sources;
    const { state } = ctx;
    const answer = await ctx.finishing.edit(USER, editRequest(original.generation.id));
    expect(state.credits).toBe(25 - CREDIT_COSTS.edit);
    expect(ctx.engine.calls[0]).toMatchObject({
      kind: 'edit',
      input: { prompt: 'the same cliff in snow', strength: 0.55, seed: 11, image: { width: 256 } },
    });
    expect(state.saved[0]).toMatchObject({
      sourceId: original.generation.id,
      derivation: 'edit',
      editStrength: 0.55,
      prompt: 'the same cliff in snow',
    });
    expect(answer.generation.source).toMatchObject({ id: original.generation.id, kind: 'edit', strength: 0.55 });

    ctx.engine.answerWith(async () => {
      throw new ProviderError('refused', 'rejected');
    });
    await expect(ctx.finishing.edit(USER, editRequest(original.generation.id))).rejects.toMatchObject({
      status: 422,
      code: 'generation_rejected',
      message: `The image service refused this request. Your ${CREDIT_COSTS.edit} credits were refunded.`,
    });
    expect(state.credits).toBe(25 - CREDIT_COSTS.edit);
    expect(state.ledger.at(-1)).toMatchObject({ delta: CREDIT_COSTS.edit, reason: 'Refund: image edit failed' });
  });
});
