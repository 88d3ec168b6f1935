import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainingMsLeft, trainingStageText, type TrainingProgress, type TrainingView } from '@common/training.ts';
import { createFalTrainer } from '../../server/providers/inference/fal-trainer.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { listTrainings, trainingArchive, trainingEnded, trainingPayload, uploadArchive } from '../helpers/training.ts';
import { waitFor } from '../helpers/wait.ts';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.ts';

/** The trainer's progress stored with the training and read back as the page reads it (issue 54 item 6). */

async function submit(ts: TestServer): Promise<{ client: TestClient; requestId: string }> {
  const { client } = await ts.signUp({ credits: 500 });
  const url = await uploadArchive(client, await trainingArchive(4));
  const res = await client.post('/api/image/submit-lora-training', trainingPayload(url));
  expect(res.status, await res.clone().text()).toBe(200);
  return { client, requestId: (await res.json()).request_id as string };
}

async function listed(client: TestClient, requestId: string): Promise<TrainingView | undefined> {
  return (await listTrainings(client)).find((t) => t.request_id === requestId);
}

/** Waits for the listed training's progress to satisfy `ok`. */
const progressWhere = (client: TestClient, requestId: string, what: string, ok: (p: TrainingProgress) => boolean) =>
  waitFor(what, async () => {
    const p = (await listed(client, requestId))?.progress;
    return p && ok(p) ? p : undefined;
  });

describe('built-in trainer progress', () => {
  let ts: TestServer;
  beforeAll(async () => {
    // Long enough that its first tenth, preparing the photos, is seen by a poll also on a busy machine.
    ts = await startTestServer({ env: { TRAINING_DURATION_SECONDS: '8', TRAINING_POLL_SECONDS: '0.05' } });
  });
  afterAll(async () => {
    await ts?.stop();
  });

  it('stores its stage and steps as it trains, with a step rate measured from them, and clears them at the end', async () => {
    const { client, requestId } = await submit(ts);
    const seen: TrainingProgress[] = [];
    const done = await waitFor(
      'the training to end',
      async () => {
        const t = await listed(client, requestId);
        if (t?.progress) seen.push(t.progress);
        return t && t.status !== 'IN_PROGRESS' ? t : undefined;
      },
      90_000,
    );
    expect(done.status).toBe('COMPLETED');
    expect(done.progress).toBeNull();

    expect(seen.some((p) => trainingStageText(p) === 'Preparing photos')).toBe(true);
    const steps = seen.filter((p) => p.stage === 'training');
    expect(steps.length).toBeGreaterThan(2);
    for (const p of steps) expect(trainingStageText(p)).toMatch(/^Training — step \d+ of 1000$/);
    const counts = steps.map((p) => p.step!);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)!).toBeGreaterThan(counts[0]!);
    // The time left comes from the steps measured: 1000 steps over ~7.2 s, so a few seconds at most.
    const late = steps.at(-1)!;
    const msLeft = trainingMsLeft(late);
    expect(msLeft).not.toBeNull();
    expect(msLeft!).toBeGreaterThan(0);
    expect(msLeft!).toBeLessThan(8_000);
  }, 120_000); // a training of 8 s after photo checks: minutes on a busy machine
});

describe('fal trainer progress (against the fake fal)', () => {
  let fal: FakeFal;
  let ts: TestServer;
  beforeAll(async () => {
    fal = await startFakeFal({ latencyMs: 40 });
    ts = await startTestServer({
      env: { TRAINING_DURATION_SECONDS: '0', FAL_KEY: fal.key, FAL_WEBHOOK_JWKS_URL: fal.jwksUrl, TRAINING_POLL_SECONDS: '0.02' },
      runtime: { falTrainer: createFalTrainer({ credentials: fal.key, fetch: fal.fetch }), falFetch: fal.fetch },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await fal?.stop();
  });

  it("stores fal's queue position while queued and the step counts of its logs while it trains", async () => {
    // Queued for a while, then held running until released.
    fal.control.setLatency(3_000);
    fal.control.stallNext({ endpoint: 'fal-ai/flux-lora-fast-training' });
    fal.control.queueStatus({ queuePosition: 2 });
    const { client, requestId } = await submit(ts);

    const queued = await progressWhere(client, requestId, 'the queue position', (p) => p.stage === 'queued');
    expect(trainingStageText(queued)).toBe('Queued, 2 ahead');

    fal.control.queueStatus({ logs: ['Preprocessing images', 'Generating masks'] });
    const preparing = await progressWhere(client, requestId, 'the preparing stage', (p) => p.stage === 'preparing');
    expect(trainingStageText(preparing)).toBe('Preparing photos');

    fal.control.queueStatus({ logs: ['Preprocessing images', 'Training:  42%|████▏     | 420/1000 [00:30<00:41, 14.0it/s]'] });
    const first = await progressWhere(client, requestId, 'step 420', (p) => p.step === 420);
    expect(trainingStageText(first)).toBe('Training — step 420 of 1000');
    expect(trainingMsLeft(first)).toBeNull();

    fal.control.queueStatus({ logs: ['Training:  60%|██████    | 600/1000 [00:43<00:28, 14.0it/s]'] });
    const later = await progressWhere(client, requestId, 'step 600', (p) => p.step === 600);
    expect(later.rate_from).toEqual(first.rate_from);
    const elapsed = Date.parse(later.at) - Date.parse(first.at);
    // 180 steps took `elapsed`: 400 more take 400/180 of it.
    expect(trainingMsLeft(later)).toBeCloseTo((400 * elapsed) / 180, 0);

    fal.control.queueStatus({ logs: ['Saving LoRA weights'] });
    const saving = await progressWhere(client, requestId, 'the saving stage', (p) => p.stage === 'saving');
    expect(trainingStageText(saving)).toBe('Saving the model');

    fal.control.setLatency(40);
    fal.control.queueStatus(null);
    const stalled = [...fal.requests.values()].find((r) => r.endpointId === 'fal-ai/flux-lora-fast-training' && r.stalled)!;
    await fal.control.release(stalled.id);
    const done = await trainingEnded(client, requestId);
    expect(done.status).toBe('COMPLETED');
    expect(done.progress).toBeNull();
  });
});
