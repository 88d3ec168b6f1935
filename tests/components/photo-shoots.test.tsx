// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createClient } from '@supabase/supabase-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PackView, ShootPhotoView, ShootView } from '@common/photo-shoots';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { DataPort, Me } from '@/backend/port';
import { createSupabaseData } from '@/backend/hosted/supabase-data';
import { meKey } from '@/session/api';
import PhotoShootsPage from '@/pages/app/photo-shoots-page';
import PhotoShootPage from '@/pages/app/photo-shoot-page';
import { fakeBackend, me } from '../support/fake-backend';

const pack = (id: string, name: string, n: number): PackView => ({
  id,
  name,
  description: `${name} description`,
  category: name,
  aspect_ratio: '4:5',
  width: 896,
  height: 1120,
  cover_url: `/media/packs/${id}/cover.jpeg`,
  sample_urls: [`/media/packs/${id}/cover.jpeg`],
  photo_count: n,
  cost: n * 10,
  prompts: Array.from({ length: n }, (_, i) => `Studio portrait ${i + 1} of the person, 85mm lens`),
});
const PACKS = [pack('linkedin-profile', 'LinkedIn Profile', 10), pack('corporate-headshot', 'Corporate Headshot', 12)];
const DANA = {
  id: '11111111-1111-4111-8111-111111111111',
  character_name: 'Dana',
  trigger_word: 'danap',
  lora_file_url: '/media/loras/d.json',
};

function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

function renderAt(
  path: string,
  opts: {
    credits?: number;
    characters?: (typeof DANA)[];
    routes?: Record<string, (body: unknown, method: string) => unknown>;
    /** The reads as another adapter makes them (the hosted one), instead of the local API's. */
    data?: DataPort;
  } = {},
) {
  const fake = fakeBackend({
    routes: {
      '/api/photo-packs': () => ({ items: PACKS }),
      '/api/characters': () => ({ items: opts.characters ?? [DANA] }),
      '/api/shoots': () => ({ items: [] }),
      ...opts.routes,
    },
  });
  const client = createQueryClient();
  // Keep the app's retry rules without their waits.
  client.setDefaultOptions({ queries: { ...client.getDefaultOptions().queries, retryDelay: 0 } });
  client.setQueryData<Me>(meKey, me({ credits: opts.credits ?? 1000 }));
  const backend = opts.data ? { ...fake.backend, data: opts.data } : fake.backend;
  render(
    <AppProviders backend={backend} queryClient={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/app/photo-shoots" element={<PhotoShootsPage />} />
          <Route path="/app/photo-shoots/:id" element={<PhotoShootPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
        <Where />
      </MemoryRouter>
    </AppProviders>,
  );
  return fake;
}

afterEach(cleanup);

describe('Photo Shoots page', () => {
  it('shows a grid of pack cards with cover, name, description, photos and credits', async () => {
    renderAt('/app/photo-shoots');
    const card = await screen.findByRole('button', { name: 'LinkedIn Profile' });
    expect(within(card).getByText('10 photos')).toBeTruthy();
    expect(within(card).getByText('100 credits')).toBeTruthy();
    expect(within(card).getByText('LinkedIn Profile description')).toBeTruthy();
    expect(card.querySelector('img')?.getAttribute('src')).toBe('/media/packs/linkedin-profile/cover.jpeg');
    expect(screen.getAllByTestId('pack-card')).toHaveLength(2);
  });

  it('opens a pack at the top of its page, and goes back to the grid at the top (the path stays the same)', async () => {
    const user = userEvent.setup();
    // As Chromium's: scrollTo answers a promise.
    const scrolls = vi.spyOn(window, 'scrollTo').mockImplementation((() => Promise.resolve()) as unknown as () => void);
    try {
      renderAt('/app/photo-shoots');
      await user.click(await screen.findByRole('button', { name: 'LinkedIn Profile' }));
      expect(await screen.findByRole('heading', { name: 'LinkedIn Profile' })).toBeTruthy();
      const opened = scrolls.mock.calls.length;
      expect(scrolls).toHaveBeenLastCalledWith({ top: 0 });
      await user.click(screen.getByRole('button', { name: /All photo shoots/ }));
      await screen.findByRole('heading', { name: 'Photo Shoots' });
      expect(scrolls.mock.calls.length).toBeGreaterThan(opened);
      expect(scrolls).toHaveBeenLastCalledWith({ top: 0 });
    } finally {
      scrolls.mockRestore();
    }
  });

  it('opens a pack: prompts in words, the character picker and Start shoot with its cost, starting once per click', async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    renderAt('/app/photo-shoots?pack=linkedin-profile', {
      routes: {
        '/api/shoots': (body, method) => {
          if (method === 'GET') return { items: [] };
          sent.push(body);
          return { id: 'shoot-1' };
        },
      },
    });
    expect(await screen.findByRole('heading', { name: 'LinkedIn Profile' })).toBeTruthy();
    expect(screen.getByText('Studio portrait 1 of the person, 85mm lens')).toBeTruthy();
    const radio = await screen.findByRole('radio', { name: /Dana/ });
    expect((radio as HTMLInputElement).checked).toBe(true);
    const start = screen.getByRole('button', { name: /Start shoot/ });
    expect(start.textContent).toContain('100 credits');
    await user.click(start);
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/app/photo-shoots/shoot-1'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ pack_id: 'linkedin-profile', lora_id: DANA.id, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('Start pressed again after a lost answer sends the same request id, so the server answers the first shoot', async () => {
    const user = userEvent.setup();
    const sent: { request_id: string }[] = [];
    renderAt('/app/photo-shoots?pack=linkedin-profile', {
      routes: {
        '/api/shoots': (body, method) => {
          if (method === 'GET') return { items: [] };
          sent.push(body as { request_id: string });
          // The server made and charged the shoot, but its answer never arrived.
          if (sent.length === 1) throw new TypeError('Failed to fetch');
          return { id: (body as { request_id: string }).request_id };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: /Start shoot/ }));
    expect(await screen.findByText('Failed to fetch')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Start shoot/ }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[0].request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1].request_id).toBe(sent[0].request_id);
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe(`/app/photo-shoots/${sent[0].request_id}`));
  });

  it('uses the same request id again after a refusal, which wrote nothing', async () => {
    const user = userEvent.setup();
    const sent: { request_id: string }[] = [];
    renderAt('/app/photo-shoots?pack=linkedin-profile', {
      routes: {
        '/api/shoots': (body, method) => {
          if (method === 'GET') return { items: [] };
          sent.push(body as { request_id: string });
          if (sent.length === 1) throw new ApiError(402, '{}', 'This needs 100 credits; you have 50.', 'insufficient_credits');
          return { id: `shoot-${sent.length}` };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: /Start shoot/ }));
    expect(await screen.findByText('This needs 100 credits; you have 50.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Start shoot/ }));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/app/photo-shoots/shoot-2'));
    expect(sent[1].request_id).toBe(sent[0].request_id);
  });

  it('says so when there is no photo shoot to choose from, instead of an empty grid', async () => {
    renderAt('/app/photo-shoots', { routes: { '/api/photo-packs': () => ({ items: [] }) } });
    expect(await screen.findByText('No photo shoots to choose from')).toBeTruthy();
    expect(screen.getByText('New ones are added from time to time. Please check back later.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Photo shoots' })).toBeNull();
  });

  it("says 'Failed to load your shoots' with Try Again when the user's shoots cannot be read, and shows them once it recovers", async () => {
    const user = userEvent.setup();
    let down = true;
    const running = {
      id: 'shoot-1',
      pack_id: 'linkedin-profile',
      pack_name: 'LinkedIn Profile',
      lora_id: DANA.id,
      character_name: 'Dana',
      status: 'RUNNING',
      photo_count: 10,
      cost: 100,
      created_at: '2026-01-01T00:00:00.000Z',
      finished_at: null,
      retaken: 0,
      ready: 3,
      failed: 0,
    };
    renderAt('/app/photo-shoots', {
      routes: {
        '/api/shoots': () => {
          if (down) throw new ApiError(503, '{}', 'upstream unavailable');
          return { items: [running] };
        },
      },
    });
    const section = await screen.findByRole('region', { name: 'Your shoots' });
    const alert = await within(section).findByRole('alert');
    expect(alert.textContent).toContain('Failed to load your shoots');
    // The packs still show beside it.
    expect(screen.getAllByTestId('pack-card')).toHaveLength(2);
    down = false;
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }));
    await waitFor(() => expect(within(section).queryByRole('alert')).toBeNull());
    expect(within(section).getByText(/LinkedIn Profile/)).toBeTruthy();
  });

  it("says 'Train a character first' with no completed character, and 'Need X Credits' when short", async () => {
    renderAt('/app/photo-shoots?pack=linkedin-profile', { characters: [] });
    const train = await screen.findByRole('link', { name: 'Train a character first' });
    expect(train.getAttribute('href')).toBe('/app/character-training');
    expect(screen.queryByRole('button', { name: /Start shoot/ })).toBeNull();
    cleanup();
    renderAt('/app/photo-shoots?pack=corporate-headshot', { credits: 100 });
    const need = await screen.findByRole('link', { name: 'Need 120 Credits' });
    expect(need.getAttribute('href')).toBe('/app/subscription');
    expect(screen.queryByRole('button', { name: /Start shoot/ })).toBeNull();
  });

  it('shows a refused start in words and charges nothing', async () => {
    const user = userEvent.setup();
    renderAt('/app/photo-shoots?pack=linkedin-profile', {
      routes: {
        '/api/shoots': (_body, method) => {
          if (method === 'GET') return { items: [] };
          throw new ApiError(409, '{}', 'Dana is still training. Start the shoot when the training has completed.', 'character_not_ready');
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: /Start shoot/ }));
    expect(await screen.findByText('Dana is still training. Start the shoot when the training has completed.')).toBeTruthy();
  });
});

describe('the shoot page', () => {
  const photo = (i: number, status: ShootPhotoView['status'], extra: Partial<ShootPhotoView> = {}): ShootPhotoView => ({
    id: `p${i}`,
    position: i,
    status,
    prompt: `photo ${i}`,
    width: 896,
    height: 1120,
    image_url: status === 'SUCCEEDED' ? `/media/generations/u/p${i}.jpeg` : null,
    generation_id: status === 'SUCCEEDED' ? `p${i}` : null,
    error: status === 'FAILED' ? 'This photo could not be made; refunded.' : null,
    started_at: status === 'SUCCEEDED' || status === 'FAILED' || status === 'RUNNING' ? '2026-01-01T00:00:00.000Z' : null,
    finished_at: status === 'SUCCEEDED' || status === 'FAILED' ? '2026-01-01T00:01:00.000Z' : null,
    ahead: null,
    deleted: false,
    likeness: null,
    likeness_verdict: null,
    ...extra,
  });
  const shoot = (photos: ShootPhotoView[], status: ShootView['status'] = 'RUNNING'): ShootView => ({
    id: 'shoot-1',
    pack_id: 'linkedin-profile',
    pack_name: 'LinkedIn Profile',
    lora_id: DANA.id,
    character_name: 'Dana',
    status,
    photo_count: photos.length,
    cost: photos.length * 10,
    created_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    retaken: 0,
    photos,
  });

  it('turns tiles into images as photos land, live, with progress, failures, estimate and queue position', async () => {
    let current = shoot([
      photo(0, 'SUCCEEDED'),
      photo(1, 'FAILED'),
      photo(2, 'RUNNING'),
      photo(3, 'QUEUED', { ahead: 4 }),
      photo(4, 'QUEUED', { ahead: 5 }),
    ]);
    const fake = renderAt('/app/photo-shoots/shoot-1', { routes: { '/api/shoots/shoot-1': () => current } });
    await waitFor(() =>
      expect(screen.getByTestId('shoot-progress').textContent).toBe('1 of 5 ready · 1 failed, refunded · about 3 min left'),
    );
    const tiles = screen.getAllByTestId('shoot-tile');
    expect(tiles.map((t) => t.dataset.status)).toEqual(['ready', 'failed', 'running', 'queued', 'queued']);
    expect(tiles[0].querySelector('img')?.getAttribute('src')).toBe('/media/thumbs/384/generations/u/p0.jpeg');
    expect(within(tiles[1]).getByText('This photo could not be made; refunded.')).toBeTruthy();
    expect(within(tiles[3]).getByText('Queued · 4 ahead')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel shoot' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download all' })).toBeTruthy();

    current = shoot(
      [photo(0, 'SUCCEEDED'), photo(1, 'FAILED'), photo(2, 'SUCCEEDED'), photo(3, 'SUCCEEDED'), photo(4, 'SUCCEEDED')],
      'COMPLETED',
    );
    fake.emit({ type: 'shoot', id: 'shoot-1', status: 'COMPLETED' });
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('4 of 5 ready · 1 failed, refunded'));
    expect(screen.getByText(/Shoot complete/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel shoot' })).toBeNull();
    expect(screen.getAllByTestId('shoot-tile').filter((t) => t.dataset.status === 'ready')).toHaveLength(4);
  });

  it('Cancel shoot asks first, naming the refund of the photos not yet taken, live; Keep shooting cancels nothing', async () => {
    let current = shoot([photo(0, 'SUCCEEDED'), photo(1, 'RUNNING'), photo(2, 'QUEUED'), photo(3, 'QUEUED'), photo(4, 'QUEUED')]);
    const cancels: string[] = [];
    const fake = renderAt('/app/photo-shoots/shoot-1', {
      routes: {
        '/api/shoots/shoot-1': () => current,
        '/api/shoots/shoot-1/cancel': (_body, method) => {
          cancels.push(method);
          current = shoot([photo(0, 'SUCCEEDED'), photo(1, 'RUNNING'), ...[2, 3, 4].map((i) => photo(i, 'CANCELLED'))], 'CANCELLED');
          return current;
        },
      },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Cancel shoot' }));
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('cancel-shoot-question')).toHaveTextContent(
      'Cancel this shoot? The 3 photos not yet taken are refunded (30 credits). The photo being taken now still lands.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Keep shooting' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(cancels).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Cancel shoot' }));
    dialog = await screen.findByRole('dialog');
    // A photo starts while the question is open: the refund it names follows.
    current = shoot([photo(0, 'SUCCEEDED'), photo(1, 'SUCCEEDED'), photo(2, 'RUNNING'), photo(3, 'QUEUED'), photo(4, 'QUEUED')]);
    fake.emit({ type: 'shoot', id: 'shoot-1', status: 'RUNNING' });
    await waitFor(() =>
      expect(within(dialog).getByTestId('cancel-shoot-question')).toHaveTextContent(
        'Cancel this shoot? The 2 photos not yet taken are refunded (20 credits). The photo being taken now still lands.',
      ),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel shoot' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(cancels).toEqual(['POST']);
    expect(screen.getByText(/Shoot cancelled/)).toBeTruthy();
  });

  it('counts the time left down by the second under a minute, from the photos measured so far', async () => {
    const fast = { started_at: '2026-01-01T00:00:00.000Z', finished_at: '2026-01-01T00:00:03.000Z' };
    let current = shoot([
      photo(0, 'SUCCEEDED', fast),
      photo(1, 'RUNNING'),
      ...Array.from({ length: 10 }, (_, i) => photo(i + 2, 'QUEUED')),
    ]);
    const fake = renderAt('/app/photo-shoots/shoot-1', { routes: { '/api/shoots/shoot-1': () => current } });
    // 11 photos left at 3 s each, one at a time.
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('1 of 12 ready · about 33 s left'));
    const seconds = () => Number(/about (\d+) s left/.exec(screen.getByTestId('shoot-progress').textContent ?? '')?.[1]);
    await waitFor(() => expect(seconds()).toBeLessThanOrEqual(31), { timeout: 4000 });
    // A photo lands: the estimate is made again from what was measured.
    current = shoot([
      photo(0, 'SUCCEEDED', fast),
      photo(1, 'SUCCEEDED', fast),
      photo(2, 'RUNNING'),
      ...Array.from({ length: 9 }, (_, i) => photo(i + 3, 'QUEUED')),
    ]);
    fake.emit({ type: 'shoot', id: 'shoot-1', status: 'RUNNING' });
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('2 of 12 ready · about 30 s left'));
  });

  it('shows a photo deleted from My Generations as deleted, and no Download all once none is left', async () => {
    let current = shoot(
      [photo(0, 'SUCCEEDED'), photo(1, 'SUCCEEDED', { deleted: true, image_url: null, generation_id: null })],
      'COMPLETED',
    );
    const fake = renderAt('/app/photo-shoots/shoot-1', { routes: { '/api/shoots/shoot-1': () => current } });
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('1 of 2 ready · 1 deleted'));
    const tiles = screen.getAllByTestId('shoot-tile');
    expect(tiles.map((t) => t.dataset.status)).toEqual(['ready', 'deleted']);
    expect(within(tiles[1]).getByText('Deleted from My Generations.')).toBeTruthy();
    expect(tiles[1].querySelector('img')).toBeNull();
    expect(screen.getByRole('button', { name: 'Download all' })).toBeTruthy();

    current = shoot(
      [0, 1].map((i) => photo(i, 'SUCCEEDED', { deleted: true, image_url: null, generation_id: null })),
      'COMPLETED',
    );
    fake.emit({ type: 'shoot', id: 'shoot-1', status: 'COMPLETED' });
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('0 of 2 ready · 2 deleted'));
    expect(screen.queryByRole('button', { name: 'Download all' })).toBeNull();
  });

  it("says '2 re-taken for likeness' and badges each kept photo with its likeness", async () => {
    const strong = { likeness: 71, likeness_verdict: 'strong' as const };
    const current = {
      ...shoot(
        [
          photo(0, 'SUCCEEDED', strong),
          photo(1, 'SUCCEEDED', strong),
          photo(2, 'SUCCEEDED', { likeness: 52, likeness_verdict: 'weak' }),
          photo(3, 'SUCCEEDED'),
        ],
        'COMPLETED',
      ),
      retaken: 2,
    };
    renderAt('/app/photo-shoots/shoot-1', { routes: { '/api/shoots/shoot-1': () => current } });
    await waitFor(() => expect(screen.getByTestId('shoot-progress').textContent).toBe('4 of 4 ready · 2 re-taken for likeness'));
    const tiles = screen.getAllByTestId('shoot-tile');
    expect(tiles.map((t) => within(t).queryByTestId('likeness-badge')?.textContent ?? null)).toEqual([
      'Strong likeness',
      'Strong likeness',
      'Weak likeness',
      null,
    ]);
    expect(within(tiles[0]).getByTestId('likeness-badge').getAttribute('title')).toBe('Likeness 71 of 100');
  });

  it("says so for a shoot that is not the user's", async () => {
    renderAt('/app/photo-shoots/other', {
      routes: {
        '/api/shoots/other': () => {
          throw new ApiError(404, '{}', 'There is no such photo shoot.', 'not_found');
        },
      },
    });
    expect(await screen.findByText('There is no such photo shoot.')).toBeTruthy();
  });

  it("hosted: another person's or a missing shoot (PostgREST's 406 PGRST116) and a malformed id say there is no such shoot, without Try Again", async () => {
    const asked: string[] = [];
    // supabase-js as the hosted SPA uses it, against PostgREST's answers: no row for the shoot, no kept photos.
    const supabase = createClient('https://project.supabase.test', 'anon-key', {
      auth: { persistSession: false, autoRefreshToken: false },
      global: {
        fetch: async (input) => {
          const url = new URL(String(input instanceof Request ? input.url : input));
          asked.push(url.pathname);
          if (url.pathname.endsWith('/photo_shoots')) {
            return Response.json(
              {
                code: 'PGRST116',
                details: 'The result contains 0 rows',
                hint: null,
                message: 'JSON object requested, multiple (or no) rows returned',
              },
              { status: 406 },
            );
          }
          return Response.json([]);
        },
      },
    });
    const data = createSupabaseData(supabase);
    for (const id of ['22222222-2222-4222-8222-222222222222', '-'.repeat(36)]) {
      renderAt(`/app/photo-shoots/${id}`, { data });
      expect(await screen.findByText('There is no such photo shoot.')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'All photo shoots' }).getAttribute('href')).toBe('/app/photo-shoots');
      expect(screen.queryByRole('button', { name: 'Try Again' })).toBeNull();
      cleanup();
    }
    // Asked once (not retried), and a malformed id never reaches PostgREST.
    expect(asked.filter((p) => p.endsWith('/photo_shoots'))).toHaveLength(1);
  });
});
