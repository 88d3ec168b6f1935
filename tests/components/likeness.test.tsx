// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { GenerationView } from '@common/generation';
import type { LibraryPage } from '@common/library';
import type { LikenessVerdict } from '@common/likeness';
import { AppProviders, createQueryClient } from '@/app/providers';
import type { Me } from '@/backend/port';
import { meKey } from '@/session/api';
import MyGenerationsPage from '@/pages/app/my-generations-page';
import { localBackendOver } from '../support/fake-backend';

/** The likeness check in the gallery: the viewer's badge and hint, and My Generations' 'Weak likeness' filter. */

const MARA = { id: 'c1', character_name: 'Mara', trigger_word: 'mara', lora_file_url: '/media/loras/mara.safetensors' };

function generation(n: number, verdict: LikenessVerdict | null, likeness: number | null, shootId: string | null = null): GenerationView {
  const id = `${n}0000000-0000-4000-8000-000000000000`;
  return {
    id,
    result: {
      images: [{ url: `/media/generations/u/${id}.jpeg`, width: 1024, height: 1024, content_type: 'image/jpeg' }],
      prompt: `portrait ${n}`,
      timestamp: '2026-11-25T10:00:00.000Z',
      style: null,
    },
    params: {
      prompt: `portrait ${n}`,
      image_size: { width: 1024, height: 1024 },
      loras: [{ path: MARA.lora_file_url, scale: 1 }],
      seed: '42',
      num_inference_steps: 28,
      guidance_scale: 3.5,
      output_format: 'jpeg',
    },
    timestamp: '2026-11-25T10:00:00.000Z',
    isFavorited: false,
    lora_trainings: MARA,
    source: null,
    likeness: likeness,
    likeness_verdict: verdict,
    shoot_id: shootId,
  };
}

const STRONG = { ...generation(1, 'strong', 74), isFavorited: true };
const WEAK = generation(2, 'weak', 41);
const FACELESS = generation(3, 'no_face', 0);
const UNCHECKED = generation(4, null, null);
const WEAK_IN_SHOOT = generation(5, 'weak', 48, 'shoot-1');
const ALL = [STRONG, WEAK, FACELESS, UNCHECKED, WEAK_IN_SHOOT];

function renderGallery(all: GenerationView[] = ALL) {
  const asked: string[] = [];
  const backend = localBackendOver(async function request<T>(p: string): Promise<T> {
    if (p.startsWith('/api/library/generations?')) {
      asked.push(p);
      const items = p.includes('likeness=weak')
        ? all.filter((g) => g.likeness_verdict === 'weak' || g.likeness_verdict === 'no_face')
        : all;
      return { items, page: 1, pageSize: 40, total: items.length, pageCount: 1 } satisfies LibraryPage as T;
    }
    if (p.startsWith('/api/generations')) return { items: [] } as T;
    if (p === '/api/characters') return { items: [] } as T;
    if (p === '/api/shoots') return { items: [{ id: 'shoot-1', pack_name: 'LinkedIn Profile' }] } as T;
    throw new Error(`unexpected ${p}`);
  });
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, {
    id: 'u1',
    clerk_id: 'k1',
    email: 'mara@example.com',
    full_name: 'Mara',
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
      <MemoryRouter initialEntries={['/app/my-generations']}>
        <Routes>
          <Route path="/app/my-generations" element={<MyGenerationsPage />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return { asked };
}

async function open(index: number) {
  const cards = await screen.findAllByRole('button', { name: /Open image details/ });
  fireEvent.click(cards[index]);
  return screen.findByRole('dialog');
}

afterEach(cleanup);

describe('likeness in the generation viewer', () => {
  it("shows the badge by the character's name: 'Strong likeness', 'Weak likeness', 'No face found', none before the check", async () => {
    renderGallery();
    const badges: (string | null)[] = [];
    for (const i of [0, 1, 2, 3]) {
      const dialog = await open(i);
      expect(within(dialog).getByText('Mara')).toBeInTheDocument();
      badges.push(within(dialog).queryByTestId('likeness-badge')?.textContent ?? null);
      fireEvent.keyDown(dialog, { key: 'Escape' });
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    }
    expect(badges).toEqual(['Strong likeness', 'Weak likeness', 'No face found', null]);
  });

  it('offers another seed under a weak or faceless single generation, beside Regenerate; not under a strong one or a shoot photo', async () => {
    renderGallery();
    const hintOf = async (i: number) => {
      const dialog = await open(i);
      const hint = within(dialog).queryByTestId('likeness-hint')?.textContent ?? null;
      if (hint) expect(within(dialog).getByRole('button', { name: /Regenerate/ })).toBeInTheDocument();
      fireEvent.keyDown(dialog, { key: 'Escape' });
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      return hint;
    };
    const hint = "This doesn't look much like Mara. Try again with another seed.";
    expect(await hintOf(0)).toBeNull();
    expect(await hintOf(1)).toBe(hint);
    expect(await hintOf(2)).toBe(hint);
    expect(await hintOf(3)).toBeNull();
    // A shoot re-takes its own misses; its photos get no hint.
    expect(await hintOf(4)).toBeNull();
  });
});

describe('a character without a reference face', () => {
  it('says where the badge would be that its training photos showed different people', async () => {
    const strangers = { ...generation(6, null, null), lora_trainings: { ...MARA, photos_differ: true } };
    renderGallery([strangers, UNCHECKED]);
    let dialog = await open(0);
    expect(within(dialog).getByTestId('no-likeness-check')).toHaveTextContent(
      'No likeness check: its training photos showed different people',
    );
    expect(within(dialog).queryByTestId('likeness-badge')).toBeNull();
    fireEvent.keyDown(dialog, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // A character with a reference, not checked yet: nothing to say.
    dialog = await open(1);
    expect(within(dialog).queryByTestId('no-likeness-check')).toBeNull();
  });
});

describe('My Generations tiles', () => {
  it('show the image whole, the heart, a weak-likeness mark, and a shoot photo’s shoot with a link to it', async () => {
    renderGallery();
    const cards = await screen.findAllByTestId('generation-card');
    // Whole: a portrait is never cut to the square card.
    for (const card of cards) expect(within(card).getByRole('img', { name: /portrait/ })).toHaveClass('object-contain');
    expect(cards.map((c) => within(c).queryByTestId('weak-likeness-mark')?.textContent ?? null)).toEqual([
      null,
      'Weak likeness',
      'No face found',
      null,
      'Weak likeness',
    ]);
    expect(within(cards[1]!).queryByLabelText('Favorite')).toBeNull();
    expect(within(cards[0]!).getByLabelText('Favorite')).toBeInTheDocument();
    const link = await within(cards[4]!).findByRole('link', { name: 'From the shoot LinkedIn Profile' });
    expect(link).toHaveAttribute('href', '/app/photo-shoots/shoot-1');
    expect(within(cards[0]!).queryByRole('link')).toBeNull();

    const dialog = await open(4);
    expect(within(dialog).getByTestId('viewer-shoot-link')).toHaveTextContent('LinkedIn Profile');
    expect(within(dialog).getByTestId('viewer-shoot-link')).toHaveAttribute('href', '/app/photo-shoots/shoot-1');
  });
});

describe("My Generations' 'Weak likeness' filter", () => {
  it('asks for the weak and faceless images only, and back', async () => {
    const user = userEvent.setup();
    const { asked } = renderGallery();
    expect(await screen.findAllByRole('button', { name: /Open image details/ })).toHaveLength(5);
    const filter = screen.getByRole('button', { name: 'Weak likeness' });
    expect(filter).toHaveAttribute('aria-pressed', 'false');
    await user.click(filter);
    await waitFor(() => expect(screen.getAllByRole('button', { name: /Open image details/ })).toHaveLength(3));
    expect(filter).toHaveAttribute('aria-pressed', 'true');
    expect(asked.at(-1)).toBe('/api/library/generations?page=1&likeness=weak');
    expect(screen.getByTestId('gallery-count').textContent).toBe('3 images');
    await user.click(filter);
    // Back to every image (the unfiltered page is still cached).
    await waitFor(() => expect(screen.getAllByRole('button', { name: /Open image details/ })).toHaveLength(5));
    expect(filter).toHaveAttribute('aria-pressed', 'false');
    expect(asked).toEqual(['/api/library/generations?page=1', '/api/library/generations?page=1&likeness=weak']);
  });
});
