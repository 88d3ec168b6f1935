// @vitest-environment jsdom
/**
 * My Generations, Favorites, Explore and Create Image's lists, the same tests against both adapters: the local one (our HTTP
 * API) and the hosted one (supabase-js → PostgREST). Each adapter is the real one; MSW plays its backend
 * on the wire from one in-memory set of rows, answering in that backend's own format (our JSON pages, or
 * PostgREST rows with Content-Range). The failures that matter — a network failure, a 401 after the token
 * expired, a 5xx — must show the spec's list error with Try Again, never a blank screen.
 *
 * The hosted adapter's queries against a faithful PostgREST with real Postgres and RLS are tested in
 * tests/server/hosted-adapter.test.ts; here MSW answers only the shapes these screens ask for.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { http, HttpResponse, ws } from 'msw';
import { setupServer } from 'msw/node';
import { toGenerationView, type GenerationRecord } from '@common/generation';
import { pageCountOf, restoreRefused, type ExploreItem } from '@common/library';
import { LIMITS } from '@common/product';
import { AppProviders, createQueryClient } from '@/app/providers';
import type { Backend, Me } from '@/backend/port';
import { createHttpApi } from '@/backend/http-api';
import { createLocalData } from '@/backend/local/data';
import { createLocalLive } from '@/backend/local/live';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { ExploreGallery } from '@/features/gallery/components/explore-gallery';
import { LibraryGallery } from '@/features/gallery/components/library-gallery';
import { meKey } from '@/session/api';
import CreateImagePage from '@/pages/app/create-image-page';
import { createClerkTestKeys } from '../helpers/clerk';
import { fakeEvents, me, sessionUser, stubIdentity } from '../support/fake-backend';

const SUPABASE = 'https://project.supabase.test';
const USER_ID = '6f1f7c1e-0000-4000-8000-00000000000a';
const keys = createClerkTestKeys();

const mswServer = setupServer();
beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mswServer.close());

// ── The rows both backends serve ─────────────────────────────────────────────────────────────────────
let generations: (GenerationRecord & { status: string })[] = [];
let explore: ExploreItem[] = [];
/** The user's trainings (usable characters are the COMPLETED ones with a LoRA file). */
let trainings: { id: string; character_name: string; trigger_word: string | null; status: string; lora_file_url: string | null }[] = [];
/** When set, every list request fails this way (the bad inputs). */
let failure: 'network' | 'expired' | 'server' | null = null;
/** Writes as each backend received them: `<METHOD> <where>`, where is our server's path or PostgREST's table. */
let writes: string[] = [];
/** When set, our server refuses an Undo as too late (its 410). */
let undoTooLate = false;

function generation(i: number, favorite = false): GenerationRecord & { status: string } {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    prompt: `prompt number ${i}`,
    style: null,
    width: 1024,
    height: 1024,
    output_format: 'jpeg',
    image_url: `/media/generations/${i}.jpeg`,
    lora_scale: null,
    seed: String(i),
    num_inference_steps: 28,
    guidance_scale: 3.5,
    is_favorite: favorite,
    status: 'ACTIVE',
    created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, 0) - i * 60_000).toISOString(),
    lora_trainings: null,
  };
}

function exploreItem(i: number): ExploreItem {
  return {
    id: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    image_url: `/media/explore/${i}.jpeg`,
    prompt: `explore prompt ${i}`,
    width: 1024,
    height: 1024,
    style: 'portrait',
    seed: null,
    num_inference_steps: 28,
    guidance_scale: 3.5,
    gender: i % 2 ? 'female' : 'male',
    ethnicity: 'hispanic',
    hair_color: 'black',
    is_featured: i === 3,
    created_at: new Date(Date.UTC(2026, 10, 1) - i * 60_000).toISOString(),
  };
}

/** The explore rows as both backends order them: featured first, then newest. */
const exploreOrdered = () =>
  [...explore].sort((a, b) => Number(b.is_featured) - Number(a.is_featured) || b.created_at.localeCompare(a.created_at));

const listed = (favorites: boolean) => generations.filter((g) => g.status === 'ACTIVE' && (!favorites || g.is_favorite));

function failed(kind: 'local' | 'hosted') {
  if (failure === 'network') return HttpResponse.error();
  if (failure === 'expired') {
    return kind === 'hosted'
      ? HttpResponse.json({ code: 'PGRST303', message: 'JWT expired', details: null, hint: null }, { status: 401 })
      : HttpResponse.json({ message: 'Your session has ended. Please sign in again.' }, { status: 401 });
  }
  return HttpResponse.json({ message: 'upstream unavailable' }, { status: 503 });
}

// ── Our server's API, as the local adapter reads it ─────────────────────────────────────────────────
const localApi = [
  http.get('*/api/library/generations', ({ request }) => {
    if (failure) return failed('local');
    const url = new URL(request.url);
    const page = Number(url.searchParams.get('page') ?? 1);
    const rows = listed(url.searchParams.get('favorites') === 'true');
    const items = rows.slice((page - 1) * LIMITS.pageSize, page * LIMITS.pageSize).map(toGenerationView);
    return HttpResponse.json({ items, page, pageSize: LIMITS.pageSize, total: rows.length, pageCount: pageCountOf(rows.length) });
  }),
  http.delete('*/api/library/generations/:id', ({ params }) => {
    writes.push(`DELETE /api/library/generations/${String(params.id)}`);
    generations.find((g) => g.id === params.id)!.status = 'DELETED';
    return new HttpResponse(null, { status: 204 });
  }),
  http.patch('*/api/library/generations/:id', async ({ params, request }) => {
    const row = generations.find((g) => g.id === params.id)!;
    row.is_favorite = ((await request.json()) as { is_favorite: boolean }).is_favorite;
    return HttpResponse.json(toGenerationView(row));
  }),
  http.get('*/api/explore', ({ request }) => {
    if (failure) return failed('local');
    const page = Number(new URL(request.url).searchParams.get('page') ?? 1);
    return HttpResponse.json({
      items: exploreOrdered(),
      page,
      pageSize: LIMITS.pageSize,
      total: explore.length,
      pageCount: pageCountOf(explore.length),
    });
  }),
  http.get('*/api/generations', ({ request }) => {
    if (failure) return failed('local');
    const limit = Number(new URL(request.url).searchParams.get('limit'));
    return HttpResponse.json({ items: listed(false).slice(0, limit).map(toGenerationView) });
  }),
  http.get('*/api/characters', () =>
    HttpResponse.json({
      items: trainings
        .filter((t) => t.status === 'COMPLETED' && t.lora_file_url)
        .map(({ id, character_name, trigger_word, lora_file_url }) => ({ id, character_name, trigger_word, lora_file_url })),
    }),
  ),
  http.get('*/api/explore/filters', () =>
    HttpResponse.json({ gender: ['female', 'male'], hair_color: ['black'], ethnicity: ['hispanic'], style: ['portrait'] }),
  ),
];

// ── PostgREST, as the hosted adapter reads it ───────────────────────────────────────────────────────
const eq = (url: URL, column: string) => url.searchParams.get(column)?.replace(/^eq\./, '');

function rangeAnswer<T>(request: Request, url: URL, rows: T[]) {
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? rows.length);
  const part = rows.slice(offset, offset + limit);
  const counted = request.headers.get('prefer')?.includes('count=exact');
  const range = part.length ? `${offset}-${offset + part.length - 1}` : '*';
  return HttpResponse.json(part, { headers: { 'content-range': `${range}/${counted ? rows.length : '*'}` } });
}

const postgrest = [
  http.get(`${SUPABASE}/rest/v1/generations`, ({ request }) => {
    if (failure) return failed('hosted');
    const url = new URL(request.url);
    expect([eq(url, 'user_id'), eq(url, 'status'), url.searchParams.get('order')]).toEqual([USER_ID, 'ACTIVE', 'created_at.desc,id.desc']);
    return rangeAnswer(request, url, listed(eq(url, 'is_favorite') === 'true'));
  }),
  http.get(`${SUPABASE}/rest/v1/lora_trainings`, ({ request }) => {
    const url = new URL(request.url);
    // The personal space's lists first ask which of the person's characters are team work (issue 49): none here.
    if (url.searchParams.get('team_id') === 'not.is.null') {
      expect([url.searchParams.get('select'), eq(url, 'user_id')]).toEqual(['id', USER_ID]);
      return HttpResponse.json([]);
    }
    expect([eq(url, 'user_id'), eq(url, 'status'), url.searchParams.get('lora_file_url'), url.searchParams.get('order')]).toEqual([
      USER_ID,
      'COMPLETED',
      'not.is.null',
      'created_at.desc,id.desc',
    ]);
    return HttpResponse.json(
      trainings
        .filter((t) => t.status === 'COMPLETED' && t.lora_file_url !== null)
        .map(({ id, character_name, trigger_word, lora_file_url }) => ({ id, character_name, trigger_word, lora_file_url })),
    );
  }),
  http.patch(`${SUPABASE}/rest/v1/generations`, async ({ request }) => {
    const row = generations.find((g) => g.id === eq(new URL(request.url), 'id'))!;
    const change = (await request.json()) as Partial<GenerationRecord & { status: string }>;
    writes.push(`PATCH generations ${JSON.stringify(change)}`);
    // Row-level security lets the browser change only ACTIVE rows, to ACTIVE or DELETED (never un-delete).
    if (row.status !== 'ACTIVE') return HttpResponse.json({ code: 'PGRST116', message: 'no row' }, { status: 406 });
    Object.assign(row, change);
    return HttpResponse.json(row);
  }),
  http.get(`${SUPABASE}/rest/v1/explore_gallery`, ({ request }) => {
    if (failure) return failed('hosted');
    const url = new URL(request.url);
    expect(url.searchParams.get('order')).toBe('is_featured.desc,created_at.desc,id.desc');
    return rangeAnswer(request, url, exploreOrdered());
  }),
  // The filter values: one row of the explore_filter_options view (.single()), four sorted lists.
  http.get(`${SUPABASE}/rest/v1/explore_filter_options`, ({ request }) => {
    if (failure) return failed('hosted');
    expect(new URL(request.url).searchParams.get('select')).toBe('gender,hair_color,ethnicity,style');
    const values = (name: 'gender' | 'hair_color' | 'ethnicity' | 'style') =>
      [...new Set(explore.map((e) => e[name]).filter((v): v is string => !!v))].sort();
    return HttpResponse.json({
      gender: values('gender'),
      hair_color: values('hair_color'),
      ethnicity: values('ethnicity'),
      style: values('style'),
    });
  }),
  http.get(`${SUPABASE}/rest/v1/users`, () =>
    HttpResponse.json({
      id: USER_ID,
      clerk_id: 'user_ana',
      email: 'ana@example.com',
      full_name: 'Ana',
      credits: 0,
      updated_at: '2026-11-01T00:00:00Z',
      subscription_status: null,
      subscription_plan: null,
      creem_customer_id: null,
    }),
  ),
  http.patch(`${SUPABASE}/rest/v1/users`, () =>
    HttpResponse.json({
      id: USER_ID,
      clerk_id: 'user_ana',
      email: 'ana@example.com',
      full_name: 'Ana',
      credits: 0,
      updated_at: '2026-11-01T00:00:00Z',
      subscription_status: null,
      subscription_plan: null,
      creem_customer_id: null,
    }),
  ),
];

/**
 * Supabase Realtime, present and quiet: it accepts each channel's join (echoing its postgres_changes, as
 * realtime-js requires) and answers heartbeats. Live changes are tested against the offline Realtime in
 * training-live.test.tsx and tests/server/hosted-adapter.test.ts.
 */
const quietRealtime = ws.link(`${SUPABASE.replace(/^http/, 'ws')}/realtime/v1/websocket`).addEventListener('connection', ({ client }) => {
  client.addEventListener('message', (event) => {
    const [joinRef, ref, topic, name, payload] = JSON.parse(String(event.data)) as [
      string | null,
      string,
      string,
      string,
      { config?: { postgres_changes?: object[] } },
    ];
    if (name === 'phx_join') {
      const changes = (payload.config?.postgres_changes ?? []).map((binding, i) => ({ ...binding, id: i + 1 }));
      client.send(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response: { postgres_changes: changes } }]));
    } else if (name === 'heartbeat' || name === 'phx_leave') {
      client.send(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response: {} }]));
    }
  });
});

/** Our server's Undo, which both builds call (the hosted one with its Clerk token, on VITE_API_URL). */
const serverUndo = http.post('*/api/library/generations/:id/restore', ({ params }) => {
  writes.push(`POST /api/library/generations/${String(params.id)}/restore`);
  if (undoTooLate) return HttpResponse.json({ code: 'restore_refused', message: restoreRefused(1) }, { status: 410 });
  const row = generations.find((g) => g.id === params.id)!;
  row.status = 'ACTIVE';
  return HttpResponse.json(toGenerationView(row));
});

// ── The two adapters ─────────────────────────────────────────────────────────────────────────────────
const sessions: { close(): void }[] = [];

const ADAPTERS: { name: 'local' | 'hosted'; backend: () => Promise<Backend> }[] = [
  {
    name: 'local',
    async backend() {
      mswServer.use(...localApi, serverUndo);
      const api = createHttpApi();
      return { mode: 'local', identity: stubIdentity(), data: createLocalData(api), live: createLocalLive(fakeEvents().events), api };
    },
  },
  {
    name: 'hosted',
    async backend() {
      mswServer.use(...postgrest, quietRealtime, serverUndo);
      const config = { publishableKey: 'pk_test_x', supabaseUrl: SUPABASE, supabaseAnonKey: 'anon-key', apiUrl: '' };
      const session = openSupabaseSession(config, () => keys.mint({ sub: 'user_ana' }));
      sessions.push(session);
      // The /app guard syncs the user before any gallery shows; the adapter learns the user's id there.
      await session.data.syncUser(sessionUser({ id: 'user_ana' }));
      return { mode: 'hosted', identity: stubIdentity(), data: session.data, live: session.live, api: createHttpApi({ baseUrl: '' }) };
    },
  },
];

describe.each(ADAPTERS)('lists with the $name adapter', ({ name: backendName, backend }) => {
  beforeEach(() => {
    generations = [generation(1), generation(2, true), generation(3), { ...generation(4), status: 'DELETED' }];
    explore = [1, 2, 3].map(exploreItem);
    trainings = [
      { id: 't-new', character_name: 'Dana', trigger_word: 'danap', status: 'COMPLETED', lora_file_url: '/media/loras/dana.safetensors' },
      { id: 't-run', character_name: 'Still training', trigger_word: null, status: 'IN_PROGRESS', lora_file_url: null },
      { id: 't-old', character_name: 'Rob', trigger_word: null, status: 'COMPLETED', lora_file_url: '/media/loras/rob.safetensors' },
    ];
    failure = null;
    writes = [];
    undoTooLate = false;
  });
  afterEach(() => {
    cleanup();
    mswServer.resetHandlers();
    for (const s of sessions.splice(0)) s.close();
  });

  async function show(ui: React.ReactNode) {
    const client = createQueryClient();
    // Keep the app's retry rule (no retry on a 4xx, two on anything else) without its waits.
    client.setDefaultOptions({ queries: { ...client.getDefaultOptions().queries, retryDelay: 0 } });
    render(
      <AppProviders backend={await backend()} queryClient={client}>
        <MemoryRouter>{ui}</MemoryRouter>
      </AppProviders>,
    );
  }

  it('My Generations: the ACTIVE ones, newest first, with the total', async () => {
    await show(<LibraryGallery kind="generations" />);
    const grid = await screen.findByRole('list', { name: 'My Generations' });
    expect(
      within(grid)
        .getAllByRole('img')
        .map((img) => img.getAttribute('alt')),
    ).toEqual(['prompt number 1', 'prompt number 2', 'prompt number 3']);
    expect(screen.getByTestId('gallery-count')).toHaveTextContent('3 images');
  });

  it('Favorites: only favourites; removing one drops it and the count', async () => {
    await show(<LibraryGallery kind="favorites" />);
    const grid = await screen.findByRole('list', { name: 'Favorites' });
    expect(
      within(grid)
        .getAllByRole('img')
        .map((img) => img.getAttribute('alt')),
    ).toEqual(['prompt number 2']);
    await userEvent.click(within(grid).getByRole('button', { name: 'Remove Favorite' }));
    expect(await screen.findByText('No favorites yet')).toBeInTheDocument();
    expect(generations.find((g) => g.prompt === 'prompt number 2')!.is_favorite).toBe(false);
  });

  /** Deletes the card of `prompt` from its menu (desktop's hover overlay). */
  async function deleteFromMenu(grid: HTMLElement, prompt: string) {
    const card = within(grid).getByRole('img', { name: prompt }).closest('li')!;
    await userEvent.click(within(card).getByRole('button', { name: 'More actions' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Delete' }));
  }
  const shown = (grid: HTMLElement) =>
    within(grid)
      .getAllByRole('img')
      .map((img) => img.getAttribute('alt'));

  it("Delete offers Undo in a toast 'Image deleted'; Undo, through our server, brings the image back where it was", async () => {
    await show(<LibraryGallery kind="generations" />);
    const grid = await screen.findByRole('list', { name: 'My Generations' });
    await deleteFromMenu(grid, 'prompt number 2');
    await waitFor(() => expect(shown(grid)).toEqual(['prompt number 1', 'prompt number 3']));
    expect(screen.getByTestId('gallery-count')).toHaveTextContent('2 images');
    const undo = await screen.findByRole('button', { name: 'Undo', description: 'Image deleted' });
    await userEvent.click(undo);
    await waitFor(() => expect(shown(grid)).toEqual(['prompt number 1', 'prompt number 2', 'prompt number 3']));
    expect(screen.getByTestId('gallery-count')).toHaveTextContent('3 images');
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
    const id = generation(2).id;
    // The delete goes where each build sends it; the Undo always to our server, which checks its time.
    expect(writes).toEqual([
      backendName === 'local' ? `DELETE /api/library/generations/${id}` : 'PATCH generations {"status":"DELETED"}',
      `POST /api/library/generations/${id}/restore`,
    ]);
  });

  it('an Undo that comes too late says the image could not be restored, and the image stays deleted', async () => {
    undoTooLate = true;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await show(<LibraryGallery kind="generations" />);
      const grid = await screen.findByRole('list', { name: 'My Generations' });
      await deleteFromMenu(grid, 'prompt number 1');
      await userEvent.click(await screen.findByRole('button', { name: 'Undo' }));
      expect(await screen.findByText(restoreRefused(1))).toBeInTheDocument();
      expect(warn).toHaveBeenCalledWith('Undo of a delete failed', expect.objectContaining({ status: 410 }));
      expect(shown(grid)).toEqual(['prompt number 2', 'prompt number 3']);
    } finally {
      warn.mockRestore();
    }
  });

  it('Create Image: the 6 newest generations in Recent Generations, the usable characters in the picker', async () => {
    generations = Array.from({ length: 8 }, (_, i) => generation(i + 1));
    const client = createQueryClient();
    client.setQueryData<Me>(meKey, me({ credits: 100 }));
    render(
      <AppProviders backend={await backend()} queryClient={client}>
        <MemoryRouter initialEntries={['/app/create-image']}>
          <CreateImagePage />
        </MemoryRouter>
      </AppProviders>,
    );
    const recent = await screen.findByRole('list', { name: 'Recent generations' });
    expect(
      within(recent)
        .getAllByRole('button')
        .map((b) => b.getAttribute('aria-label')),
    ).toEqual([1, 2, 3, 4, 5, 6].map((i) => `Show: prompt number ${i}`));
    const picker = screen.getByRole('combobox', { name: 'Character' });
    await waitFor(() =>
      expect(
        within(picker)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(expect.arrayContaining(['Dana', 'Rob'])),
    );
    expect(within(picker).queryByRole('option', { name: 'Still training' })).toBeNull();
  });

  it('Explore: featured first, with the total', async () => {
    await show(<ExploreGallery />);
    expect(await screen.findByText('3 images')).toBeInTheDocument();
    const alts = screen.getAllByRole('img').map((img) => img.getAttribute('alt'));
    expect(alts.filter((a) => a?.startsWith('explore prompt'))[0]).toBe('explore prompt 3');
  });

  for (const [kind, why] of [
    ['network', 'the network fails'],
    ['expired', 'the session token expired (401)'],
    ['server', 'the backend answers 5xx'],
  ] as const) {
    it(`shows 'Failed to load generations' with Try Again when ${why}, and loads on Try Again once it recovers`, async () => {
      failure = kind;
      await show(<LibraryGallery kind="generations" />);
      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent('Failed to load generations');
      failure = null;
      await userEvent.click(within(alert).getByRole('button', { name: 'Try Again' }));
      expect(await screen.findByRole('list', { name: 'My Generations' })).toBeInTheDocument();
    });
  }

  it("shows 'Failed to load favorites' and 'Failed to load explore gallery' with Try Again", async () => {
    failure = 'server';
    await show(
      <>
        <LibraryGallery kind="favorites" />
        <ExploreGallery />
      </>,
    );
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(2));
    expect(screen.getByText('Failed to load favorites')).toBeInTheDocument();
    expect(screen.getByText('Failed to load explore gallery')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Try Again' })).toHaveLength(2);
  });
});
