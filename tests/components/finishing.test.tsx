// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GenerateImageResponse, GenerationSource, GenerationView } from '@common/generation';
import type { LibraryPage } from '@common/library';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { Me, RequestOptions } from '@/backend/port';
import { meKey } from '@/session/api';
import CreateImagePage from '@/pages/app/create-image-page';
import MyGenerationsPage from '@/pages/app/my-generations-page';
import { localBackendOver } from '../support/fake-backend';
import { stubPhoneScreen } from '../support/phone';

/** Finishing a result in the viewer: upscale, edit with a prompt, keep the seed. */

const SOURCE_ID = '11111111-1111-4111-8111-111111111111';
const UPSCALED_ID = '22222222-2222-4222-8222-222222222222';
const BIG_ID = '33333333-3333-4333-8333-333333333333';

function generation(id: string, size: number, source: GenerationSource | null = null, seed = '4242'): GenerationView {
  return {
    id,
    result: {
      images: [{ url: `/media/generations/u/${id}.jpeg`, width: size, height: size, content_type: 'image/jpeg' }],
      prompt: 'a lighthouse at dusk',
      timestamp: '2026-11-25T10:00:00.000Z',
      style: null,
    },
    params: {
      prompt: 'a lighthouse at dusk',
      image_size: { width: size, height: size },
      loras: [],
      seed,
      num_inference_steps: 28,
      guidance_scale: 3.5,
      output_format: 'jpeg',
    },
    timestamp: '2026-11-25T10:00:00.000Z',
    isFavorited: false,
    lora_trainings: null,
    source,
    likeness: null,
    likeness_verdict: null,
    shoot_id: null,
  };
}

const ITEMS = [
  generation(UPSCALED_ID, 2048, { id: SOURCE_ID, kind: 'upscale', factor: 2, strength: null }),
  generation(BIG_ID, 3072),
  generation(SOURCE_ID, 1024),
];

interface Pending {
  path: string;
  body: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

function renderApp(path = '/app/my-generations') {
  const pending: Pending[] = [];
  const sent: { path: string; body: unknown }[] = [];
  const backend = localBackendOver(async function request<T>(p: string, opts: RequestOptions = {}): Promise<T> {
    if (p.startsWith('/api/library/generations?')) {
      return { items: ITEMS, page: 1, pageSize: 40, total: ITEMS.length, pageCount: 1 } satisfies LibraryPage as T;
    }
    if (p.startsWith('/api/generations')) return { items: [] } as T;
    if (p === '/api/characters') return { items: [] } as T;
    if (p.startsWith('/api/image/')) {
      sent.push({ path: p, body: opts.body });
      return new Promise<T>((resolve, reject) =>
        pending.push({ path: p, body: opts.body, resolve: resolve as (v: unknown) => void, reject }),
      );
    }
    throw new Error(`unexpected ${p}`);
  });
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, {
    id: 'u1',
    clerk_id: 'k1',
    email: 'dana@example.com',
    full_name: 'Dana',
    credits: 100,
    updated_at: '',
    subscription_status: null,
    subscription_plan: null,
    creem_customer_id: null,
    image_url: null,
    joined_at: '',
  });
  render(
    <AppProviders backend={backend} queryClient={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/app/my-generations" element={<MyGenerationsPage />} />
          <Route path="/app/create-image" element={<CreateImagePage />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return { pending, sent };
}

async function openCard(index: number) {
  const cards = await screen.findAllByRole('button', { name: /Open image details/ });
  fireEvent.click(cards[index]);
  return screen.findByRole('dialog');
}

const answer = (id: string, size: number, source: GenerationSource): GenerateImageResponse => {
  const g = generation(id, size, source);
  return { images: g.result.images, prompt: g.params.prompt, seed: 4242, generation: g };
};

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('the generation viewer: upscale', () => {
  it('shows Upscale 2× and 4× with their costs, and the HD badge only on the upscaled card', async () => {
    renderApp();
    const cards = await screen.findAllByRole('listitem');
    expect(within(cards[0]).getByText('HD')).toBeInTheDocument();
    expect(within(cards[2]).queryByText('HD')).toBeNull();

    const dialog = await openCard(2);
    const two = within(dialog).getByRole('button', { name: /Upscale 2×/ });
    const four = within(dialog).getByRole('button', { name: /Upscale 4×/ });
    expect(two).toHaveTextContent('5 credits');
    expect(four).toHaveTextContent('10 credits');
    expect(two).toBeEnabled();
    expect(four).toBeEnabled();
  });

  it('sends one request however often it is clicked, disables both while it runs, then offers the new image', async () => {
    const user = userEvent.setup();
    const { pending, sent } = renderApp();
    const dialog = await openCard(2);
    const two = within(dialog).getByRole('button', { name: /Upscale 2×/ });
    await user.dblClick(two);
    await user.click(two);
    expect(sent).toEqual([{ path: '/api/image/upscale', body: { generation_id: SOURCE_ID, factor: 2 } }]);
    expect(within(dialog).getByRole('button', { name: /Upscale 2×/ })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: /Upscale 4×/ })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Edit with a prompt' })).toBeDisabled();

    pending[0].resolve(answer('44444444-4444-4444-8444-444444444444', 2048, { id: SOURCE_ID, kind: 'upscale', factor: 2, strength: null }));
    expect(await within(dialog).findByText(/Upscaled 2× — added to My Generations\./)).toHaveAttribute('role', 'status');
    expect(within(dialog).getByRole('button', { name: 'Open it' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: /Upscale 2×/ })).toBeEnabled();
  });

  it('shows the server’s message when an upscale is refused', async () => {
    const user = userEvent.setup();
    const { pending } = renderApp();
    const dialog = await openCard(2);
    await user.click(within(dialog).getByRole('button', { name: /Upscale 4×/ }));
    pending[0].reject(new ApiError(402, '{}', 'This needs 10 credits; you have 5.', 'insufficient_credits'));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('This needs 10 credits; you have 5.');
  });

  it('disables an upscale past 4096 px and says why', async () => {
    renderApp();
    const dialog = await openCard(1);
    expect(within(dialog).getByRole('button', { name: /Upscale 2×/ })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: /Upscale 4×/ })).toBeDisabled();
    expect(
      within(dialog).getByText('Upscale 2× would make this 3072×3072 image 6144×6144 px; the long side can be at most 4096 px.'),
    ).toBeInTheDocument();
  });

  it('links an upscaled image to its source, and the link opens the source', async () => {
    renderApp();
    const dialog = await openCard(0);
    const link = within(dialog).getByTestId('source-link');
    expect(link).toHaveTextContent('Upscaled 2× from 11111111…');
    fireEvent.click(within(link).getByRole('button'));
    await waitFor(() => expect(within(screen.getByRole('dialog')).getByText(SOURCE_ID)).toBeInTheDocument());
    expect(within(screen.getByRole('dialog')).queryByTestId('source-link')).toBeNull();
  });
});

describe('the generation viewer: edit with a prompt', () => {
  it('opens Create Image from the source: image shown, prompt and size prefilled, Strength 0.2–0.95 at 0.6, sent as an edit', async () => {
    const user = userEvent.setup();
    const { sent } = renderApp();
    const dialog = await openCard(2);
    await user.click(within(dialog).getByRole('button', { name: 'Edit with a prompt' }));

    expect(await screen.findByRole('img', { name: 'Starting point' })).toHaveAttribute('src', `/media/generations/u/${SOURCE_ID}.jpeg`);
    expect(screen.getByLabelText('Prompt')).toHaveValue('a lighthouse at dusk');
    expect(screen.getByLabelText('Width')).toHaveValue('1024');
    const strength = screen.getByLabelText('Strength');
    expect(strength).toHaveAttribute('min', '0.2');
    expect(strength).toHaveAttribute('max', '0.95');
    expect(strength).toHaveValue('0.6');
    fireEvent.change(strength, { target: { value: '0.35' } });

    await user.clear(screen.getByLabelText('Prompt'));
    await user.type(screen.getByLabelText('Prompt'), 'a lighthouse at dawn in fog');
    await user.click(screen.getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0].path).toBe('/api/image/edit');
    expect(sent[0].body).toMatchObject({
      source_id: SOURCE_ID,
      strength: 0.35,
      prompt: 'a lighthouse at dawn in fog',
      image_size: { width: 1024, height: 1024 },
    });
    // Generate is held while the edit runs (the same queue as a generation).
    expect(screen.getByRole('button', { name: 'Generate' })).toBeDisabled();
  });

  it('Start from scratch drops the source: the next request is a plain generation', async () => {
    const user = userEvent.setup();
    const { sent } = renderApp();
    const dialog = await openCard(2);
    await user.click(within(dialog).getByRole('button', { name: 'Edit with a prompt' }));
    await user.click(await screen.findByRole('button', { name: 'Start from scratch' }));
    expect(screen.queryByRole('img', { name: 'Starting point' })).toBeNull();
    expect(screen.queryByLabelText('Strength')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(sent.map((s) => s.path)).toEqual(['/api/image/generate-image']));
  });
});

describe('Regenerate: Keep the seed', () => {
  it('is off by default: the seed is cleared', async () => {
    const user = userEvent.setup();
    renderApp();
    const dialog = await openCard(2);
    expect(within(dialog).getByLabelText('Keep the seed')).not.toBeChecked();
    await user.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    expect(await screen.findByLabelText('Seed')).toHaveValue('');
    expect(screen.getByRole('button', { name: 'Lock seed' })).toHaveAttribute('aria-pressed', 'false');
  });

  it('when ticked, Create Image starts with the same seed, locked', async () => {
    const user = userEvent.setup();
    renderApp();
    const dialog = await openCard(2);
    await user.click(within(dialog).getByLabelText('Keep the seed'));
    await user.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    expect(await screen.findByLabelText('Seed')).toHaveValue('4242');
    expect(screen.getByRole('button', { name: 'Lock seed' })).toHaveAttribute('aria-pressed', 'true');
  });
});

describe('on a phone', () => {
  it('the full-screen sheet offers the same actions', async () => {
    stubPhoneScreen();
    try {
      const user = userEvent.setup();
      const { sent } = renderApp();
      const dialog = await openCard(2);
      expect(within(dialog).getByRole('button', { name: 'Back' })).toBeInTheDocument();
      await user.click(within(dialog).getByRole('button', { name: /Upscale 2×/ }));
      expect(sent).toEqual([{ path: '/api/image/upscale', body: { generation_id: SOURCE_ID, factor: 2 } }]);
      expect(within(dialog).getByRole('button', { name: /Upscale 4×/ })).toBeDisabled();
      expect(within(dialog).getByRole('button', { name: 'Edit with a prompt' })).toBeInTheDocument();
      expect(within(dialog).getByLabelText('Keep the seed')).toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
