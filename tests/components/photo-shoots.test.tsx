// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PackView, ShootPhotoView, ShootView } from '@common/photo-shoots';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { Me } from '@/backend/port';
import { meKey } from '@/features/session/api';
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
  opts: { credits?: number; characters?: (typeof DANA)[]; routes?: Record<string, (body: unknown, method: string) => unknown> } = {},
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
  client.setQueryData<Me>(meKey, me({ credits: opts.credits ?? 1000 }));
  render(
    <AppProviders backend={fake.backend} queryClient={client}>
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
});
