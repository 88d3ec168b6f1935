// @vitest-environment jsdom
/**
 * Character training, the same tests against both adapters: a training is submitted (a paid action: our
 * server's API in both modes), then the server ends it and the page follows it live to its end state.
 *
 * - local: our API's answers and its event stream, played by the test (tests/support/fake-backend.ts);
 * - hosted: the real supabase-js, as the hosted SPA opens it, against the offline Supabase stack (PostgREST
 *   subset and Realtime over the real Postgres with supabase/migrations and row-level security), run in a
 *   Node process of its own (tests/helpers/supabase-stack-child.ts). The server's writes are SQL on the
 *   tables, as our server makes them; the page learns of them only through Realtime and PostgREST.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import pg from 'pg';
import { WebSocket } from 'ws';
import type { TrainingProgress, TrainingView } from '@common/training';
import type { Backend, Me } from '@/backend/port';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { createClerkTestKeys } from '../helpers/clerk';
import { startSupabaseStackProcess, type SupabaseStackProcess } from '../helpers/supabase-stack-child';
import { testDatabaseUrl } from '../helpers/test-database';
import { fakeBackend, sessionUser } from '../support/fake-backend';
import { distinctHash, fillForm, photoIndex, record, renderTrainingPage, verdict } from '../support/training-page';

const SUCCESS =
  'Training submitted successfully! It will take 5-10 minutes to complete. You can check the progress in the Previous Trainings panel.';
const LORA_URL = '/media/loras/u/dana.safetensors';

/** What our server does around a training, in the backend each adapter reads. */
interface ServerSide {
  backend: Backend;
  me: Me;
  /** The training row submit-lora-training creates (IN_PROGRESS, for the request id it answers). */
  created(): Promise<void>;
  /** The training ends: COMPLETED with its LoRA file, or FAILED. */
  ended(end: { status: 'COMPLETED'; lora_file_url: string; result: unknown } | { status: 'FAILED'; error: string | null }): Promise<void>;
  /** The runner stores the trainer's progress on the running training (issue 54 item 6). */
  progressed(progress: TrainingProgress): Promise<void>;
  close(): Promise<void>;
}

/** Our server's paid endpoints the page calls in both modes (upload, photo checks, submission). */
function paidRoutes(requestId: string, onSubmit: () => Promise<void>) {
  return {
    '/api/trainings/check-photo': async (body: unknown) => {
      const index = await photoIndex(body);
      return { ...verdict(), hash: distinctHash(index) };
    },
    '/api/upload': () => ({ success: true, url: '/media/uploads/u/a.zip' }),
    '/api/image/submit-lora-training': async () => {
      await onSubmit();
      return { request_id: requestId };
    },
  };
}

async function localSide(): Promise<ServerSide> {
  let trainings: TrainingView[] = [];
  const side: ServerSide = {} as ServerSide;
  const fake = fakeBackend({ routes: { '/api/trainings': () => ({ items: trainings }), ...paidRoutes('req-1', () => side.created()) } });
  return Object.assign(side, {
    backend: fake.backend,
    me: {
      id: 'u1',
      clerk_id: 'auth-user-1',
      email: 'jamie@example.com',
      full_name: 'Jamie',
      credits: 1000,
      updated_at: '',
      subscription_status: null,
      subscription_plan: null,
      creem_customer_id: null,
      image_url: null,
      joined_at: '',
    },
    async created() {
      trainings = [record()];
    },
    async ended(end: Parameters<ServerSide['ended']>[0]) {
      trainings = [
        record(
          end.status === 'COMPLETED'
            ? { status: 'COMPLETED', lora_file_url: end.lora_file_url, result: end.result }
            : { status: 'FAILED', error: end.error },
        ),
      ];
      fake.emit({ type: 'training', action: 'updated', id: 't1', status: end.status });
    },
    async progressed(progress: TrainingProgress) {
      trainings = [record({ progress })];
      fake.emit({ type: 'training', action: 'updated', id: 't1', status: 'IN_PROGRESS' });
    },
    close: async () => {},
  });
}

let stack: SupabaseStackProcess;
let owner: pg.Client;
const keys = createClerkTestKeys();

async function hostedSide(): Promise<ServerSide> {
  const clerkId = `user_dana_${Math.random().toString(36).slice(2, 10)}`;
  const config = { publishableKey: 'pk_test_x', supabaseUrl: stack.url, supabaseAnonKey: stack.anonKey, apiUrl: '' };
  const session = openSupabaseSession(config, () => keys.mint({ sub: clerkId }), { realtime: { transport: WebSocket as never } });
  // The /app guard's user sync, through the adapter: creates the users row the trainings belong to.
  const synced = await session.data.syncUser(sessionUser({ id: clerkId }));
  let trainingId = '';
  // Request ids are unique across all trainings.
  const requestId = `req-${clerkId}`;
  const side: ServerSide = {} as ServerSide;
  const fake = fakeBackend({ routes: paidRoutes(requestId, () => side.created()) });
  return Object.assign(side, {
    backend: { ...fake.backend, mode: 'hosted', data: session.data, live: session.live } satisfies Backend,
    me: { ...synced, credits: 1000 },
    async created() {
      const { rows } = await owner.query(
        `insert into lora_trainings (user_id, request_id, character_name, trigger_word, gender, hair_color, status, upload_url)
         values ($1, $2, 'Dana', 'jamie', 'other', 'other', 'IN_PROGRESS', '/media/uploads/u/a.zip') returning id`,
        [synced.id, requestId],
      );
      trainingId = rows[0].id;
    },
    async ended(end: Parameters<ServerSide['ended']>[0]) {
      if (end.status === 'COMPLETED') {
        await owner.query(`update lora_trainings set status = 'COMPLETED', lora_file_url = $2, result = $3 where id = $1`, [
          trainingId,
          end.lora_file_url,
          JSON.stringify(end.result),
        ]);
      } else {
        await owner.query(`update lora_trainings set status = 'FAILED', error = $2 where id = $1`, [trainingId, end.error]);
      }
    },
    async progressed(progress: TrainingProgress) {
      await owner.query(`update lora_trainings set progress = $2 where id = $1`, [trainingId, JSON.stringify(progress)]);
    },
    async close() {
      session.close();
    },
  });
}

const SIDES = [
  { name: 'local', side: localSide },
  { name: 'hosted', side: hostedSide },
];

beforeAll(async () => {
  testDatabaseUrl();
  stack = await startSupabaseStackProcess(keys.publicKeyPem);
  // One client, not a pool: its end() waits until the server has closed the session, so dropping the database
  // afterwards never terminates a session still closing (an unhandled 57P01).
  owner = new pg.Client({ connectionString: stack.databaseUrl });
  await owner.connect();
}, 60_000);

afterAll(async () => {
  await owner?.end();
  await stack?.stop();
});

describe.each(SIDES)('character training with the $name adapter', ({ side: makeSide }) => {
  let side: ServerSide;

  beforeEach(async () => {
    let n = 0;
    URL.createObjectURL = vi.fn(() => `blob:preview-${n++}`);
    URL.revokeObjectURL = vi.fn();
    side = await makeSide();
  });
  afterEach(async () => {
    cleanup();
    vi.restoreAllMocks();
    await side?.close();
  });

  const renderPage = () => renderTrainingPage(side.backend, side.me);

  it('follows a submitted training live to COMPLETED and generates with the character', async () => {
    renderPage();
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await screen.findByText(SUCCESS);
    // The hosted side reads the new row through PostgREST in another process: a loaded CI machine takes over 1 s.
    // findByText fails when the row never shows; the element it found may be re-rendered away a moment later
    // (the list's realtime refetch), so it is not asked for again.
    await screen.findByText('Training', {}, { timeout: 10_000 });

    await side.ended({ status: 'COMPLETED', lora_file_url: LORA_URL, result: { ok: true } });
    expect(await screen.findByText('Your character is ready', {}, { timeout: 10_000 })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Generate with this character' }));
    expect(JSON.parse(screen.getByTestId('nav-state').textContent!)).toEqual({
      selectedCharacter: { id: expect.any(String), character_name: 'Dana', trigger_word: 'jamie', lora_file_url: LORA_URL },
    });
  });

  it('shows the stored error of a FAILED training, or "Training failed. Please try again." without one', async () => {
    renderPage();
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await screen.findByText(SUCCESS);
    await side.ended({ status: 'FAILED', error: null });
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Training failed. Please try again.'), { timeout: 10_000 });
  });

  it("shows the trainer's stage under the 'Training' pill and the time left from the measured step rate", async () => {
    renderPage();
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await screen.findByText(SUCCESS);
    await screen.findByText('Training', {}, { timeout: 10_000 });

    await side.progressed({ stage: 'queued', queue_position: 2, at: '2026-11-21T10:00:30.000Z' });
    expect(await screen.findByText('Queued, 2 ahead', {}, { timeout: 10_000 })).toBeInTheDocument();

    await side.progressed({ stage: 'preparing', at: '2026-11-21T10:00:40.000Z' });
    await screen.findByText('Preparing photos', {}, { timeout: 10_000 });
    expect(screen.getByTestId('training-progress')).toHaveTextContent(/^Preparing photos$/);

    // 120 steps in the minute measured: the 580 left take 4.8 minutes.
    const rate_from = { step: 300, at: '2026-11-21T10:01:00.000Z' };
    await side.progressed({ stage: 'training', step: 420, total_steps: 1000, rate_from, at: '2026-11-21T10:02:00.000Z' });
    await screen.findByText('Training — step 420 of 1000', {}, { timeout: 10_000 });
    expect(screen.getByTestId('training-progress')).toHaveTextContent('Training — step 420 of 1000 · about 5 min left');
    expect(screen.getByRole('progressbar', { name: 'Training progress' })).toHaveAttribute('aria-valuenow', '420');
    // The pill keeps the spec's word.
    expect(screen.getByText('Training', { exact: true })).toBeInTheDocument();

    // Faster steps, a shorter estimate: 360 steps in 30 s leave 40 for about 4 s.
    await side.progressed({
      stage: 'training',
      step: 960,
      total_steps: 1000,
      rate_from: { step: 600, at: '2026-11-21T10:03:00.000Z' },
      at: '2026-11-21T10:03:30.000Z',
    });
    await waitFor(() => expect(screen.getByTestId('training-progress')).toHaveTextContent('Training — step 960 of 1000 · about 4 s left'), {
      timeout: 10_000,
    });

    await side.progressed({ stage: 'saving', step: 1000, total_steps: 1000, at: '2026-11-21T10:03:40.000Z' });
    await screen.findByText('Saving the model', {}, { timeout: 10_000 });

    await side.ended({ status: 'COMPLETED', lora_file_url: LORA_URL, result: { ok: true } });
    await screen.findByText('Your character is ready', {}, { timeout: 10_000 });
    expect(screen.queryByTestId('training-progress')).toBeNull();
  });
});
