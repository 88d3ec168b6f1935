// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CreateImageNavigationState } from '@common/create-image-state';
import type { GenerateImageResponse, GenerationRequestInput, GenerationView } from '@common/generation';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { Backend, Me, RequestOptions } from '@/backend/port';
import { meKey } from '@/session/api';
import { creditsShortLabel, GENERATION_FAILED } from '@/features/create-image/components/create-image-view';
import { initialFormState, SIZE_NOTE_MS, sizeNote, toGenerationRequest } from '@/features/create-image/hooks/use-generation-form';
import CreateImagePage from '@/pages/app/create-image-page';
import { localBackendOver } from '../support/fake-backend';

const CHARACTERS = [
  { id: 'c1', character_name: 'Dana', trigger_word: 'danap', lora_file_url: '/media/loras/dana.safetensors' },
  { id: 'c2', character_name: 'Rob', trigger_word: null, lora_file_url: '/media/loras/rob.safetensors' },
];

function generationOf(request: GenerationRequestInput, n: number): GenerationView {
  const { width, height } = request.image_size;
  return {
    id: `g${n}`,
    result: {
      images: [{ url: `/media/g${n}.jpeg`, width, height, content_type: 'image/jpeg' }],
      prompt: request.prompt,
      timestamp: '',
      style: null,
    },
    params: {
      prompt: request.prompt,
      image_size: { width, height },
      loras: (request.loras ?? []).map((l) => ({ path: l.path, scale: l.scale ?? 1 })),
      seed: String(request.seed),
      num_inference_steps: request.num_inference_steps ?? 28,
      guidance_scale: request.guidance_scale ?? 3.5,
      output_format: request.output_format ?? 'jpeg',
    },
    timestamp: '',
    source: null,
    isFavorited: false,
    lora_trainings: null,
    likeness: null,
    likeness_verdict: null,
    shoot_id: null,
  };
}

interface PendingCall {
  body: GenerationRequestInput;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A Backend whose generate calls wait until the test settles them, one by one. */
function fakeBackend() {
  const pending: PendingCall[] = [];
  const sent: GenerationRequestInput[] = [];
  const favourited: string[] = [];
  const made_: Record<string, GenerationView> = {};
  let made = 0;
  const backend: Backend = localBackendOver(async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    if (path.startsWith('/api/generations')) return { items: [] } as T;
    if (path === '/api/characters') return { items: CHARACTERS } as T;
    if (path.startsWith('/api/library/generations/') && opts.method === 'PATCH') {
      const id = path.split('/').pop()!;
      favourited.push(id);
      return { ...made_[id]!, isFavorited: (opts.body as { is_favorite: boolean }).is_favorite } as T;
    }
    if (path === '/api/image/generate-image') {
      const body = opts.body as GenerationRequestInput;
      sent.push(body);
      return new Promise<T>((resolve, reject) => {
        pending.push({
          body,
          resolve: () => {
            const generation = likenessOf(generationOf(body, ++made), body);
            made_[generation.id] = generation;
            resolve({ images: generation.result.images, prompt: body.prompt, seed: body.seed, generation } as GenerateImageResponse as T);
          },
          reject,
        });
      });
    }
    throw new Error(`unexpected ${path}`);
  });
  return { backend, pending, sent, favourited };
}

/** An image made with Dana's character comes back checked: a weak likeness. */
function likenessOf(generation: GenerationView, body: GenerationRequestInput): GenerationView {
  if (!body.loras?.length) return generation;
  return { ...generation, lora_trainings: CHARACTERS[0]!, likeness: 41, likeness_verdict: 'weak' };
}

function renderPage(opts: { credits?: number; state?: CreateImageNavigationState; search?: string } = {}) {
  const fake = fakeBackend();
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, {
    id: 'u1',
    clerk_id: 'k1',
    email: 'dana@example.com',
    full_name: 'Dana',
    credits: opts.credits ?? 100,
    updated_at: '',
    subscription_status: null,
    subscription_plan: null,
    creem_customer_id: null,
    image_url: null,
    joined_at: '',
  });
  render(
    <AppProviders backend={fake.backend} queryClient={client}>
      <MemoryRouter initialEntries={[{ pathname: '/app/create-image', search: opts.search ?? '', state: opts.state ?? null }]}>
        <Routes>
          <Route path="/app/create-image" element={<CreateImagePage />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return { ...fake, client };
}

const generateButton = () => screen.getByRole('button', { name: 'Generate' });
async function clickWhenReady(user: ReturnType<typeof userEvent.setup>) {
  await waitFor(() => expect(generateButton()).toBeEnabled());
  await user.click(generateButton());
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('generation queue', () => {
  it('queues requests made while one runs and drains them one by one', async () => {
    const user = userEvent.setup();
    const { pending, sent } = renderPage();
    await user.type(screen.getByLabelText('Prompt'), 'A red fox');
    await user.click(generateButton());
    expect(await screen.findByText('Creating your image...')).toBeInTheDocument();
    // A double-click does not queue a second image: Generate is disabled for a moment after each click.
    expect(generateButton()).toBeDisabled();
    await clickWhenReady(user);
    await clickWhenReady(user);
    expect(screen.getByText('+2 more in queue')).toBeInTheDocument();
    expect(sent).toHaveLength(1);

    await act(async () => pending[0].resolve());
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(screen.getByText('+1 more in queue')).toBeInTheDocument();
    await act(async () => pending[1].resolve());
    await waitFor(() => expect(sent).toHaveLength(3));
    expect(screen.queryByText(/more in queue/)).not.toBeInTheDocument();
    await act(async () => pending[2].resolve());

    await waitFor(() => expect(screen.queryByText('Creating your image...')).not.toBeInTheDocument());
    const recent = screen.getByRole('list', { name: 'Recent generations' });
    // Each success goes to the top.
    expect(
      within(recent)
        .getAllByRole('button')
        .map((b) => b.querySelector('img')?.getAttribute('src')),
    ).toEqual(['/media/thumbs/384/g3.jpeg', '/media/thumbs/384/g2.jpeg', '/media/thumbs/384/g1.jpeg']);
    const result = screen.getByRole('region', { name: 'Result' });
    expect(within(result).getByRole('img', { name: 'A red fox' })).toHaveAttribute('src', '/media/g3.jpeg');
    expect(within(result).getByText(/^1024×1024/)).toBeInTheDocument();
  });

  it('a failed request logs, ends loading, notes the server reason and lets the queue go on', async () => {
    const user = userEvent.setup();
    const { pending, sent } = renderPage();
    await user.type(screen.getByLabelText('Prompt'), 'A harbour');
    await user.click(generateButton());
    await clickWhenReady(user);
    await act(async () => pending[0].reject(new ApiError(422, '{}', 'The image was flagged as unsafe. Your 10 credits were refunded.')));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(console.error).toHaveBeenCalled();
    // The note stays while the next queued image is created, and goes once one succeeds.
    expect(screen.getByText('Creating your image...')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('flagged as unsafe');
    await act(async () => pending[1].resolve());
    await waitFor(() => expect(screen.queryByText('Creating your image...')).not.toBeInTheDocument());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a failure without words of its own says so in a sentence, in place of the image, not above the last one', async () => {
    const user = userEvent.setup();
    const { pending } = renderPage();
    await user.type(screen.getByLabelText('Prompt'), 'A lighthouse');
    await user.click(generateButton());
    await act(async () => pending[0].resolve());
    const result = screen.getByRole('region', { name: 'Result' });
    await waitFor(() => expect(within(result).getByRole('img', { name: 'A lighthouse' })).toBeInTheDocument());

    await clickWhenReady(user);
    await act(async () => pending[1].reject(new ApiError(500, '<html>Bad gateway</html>', 'Request failed (500)')));
    const failed = await within(result).findByTestId('generation-failed');
    expect(failed).toHaveTextContent(GENERATION_FAILED);
    expect(failed).toHaveTextContent('A lighthouse');
    expect(result).not.toHaveTextContent('Request failed');
    expect(within(result).queryByRole('img', { name: 'A lighthouse' })).not.toBeInTheDocument();
    expect(console.error).toHaveBeenCalled();
  });

  it('Generate needs the credits for everything already waiting', () => {
    expect(creditsShortLabel(9, 0)).toBe('Need 10 Credits');
    expect(creditsShortLabel(10, 0)).toBeNull();
    expect(creditsShortLabel(15, 1)).toBe('Need 20 Credits');
    expect(creditsShortLabel(20, 1)).toBeNull();
  });
});

describe('form rules', () => {
  it('clamps width and height on blur, rounds down to 8 and reverts bad input', async () => {
    const user = userEvent.setup();
    renderPage();
    const width = screen.getByLabelText('Width');
    const cases: Array<[string, string]> = [
      ['3000', '2048'],
      ['100', '512'],
      ['1001', '1000'],
      ['abc', '1000'],
      ['', '1000'],
      ['513.9', '512'],
    ];
    for (const [typed, shown] of cases) {
      fireEvent.change(width, { target: { value: typed } });
      fireEvent.blur(width);
      expect(width).toHaveValue(shown);
    }
    await user.click(screen.getByRole('button', { name: /16:9/ }));
    expect(width).toHaveValue('1024');
    expect(screen.getByLabelText('Height')).toHaveValue('576');
  });

  it('a size changed on blur says what it was set to and why, for a few seconds', async () => {
    renderPage();
    const width = screen.getByLabelText('Width');
    const height = screen.getByLabelText('Height');
    const note = screen.getByTestId('size-note');
    expect(note).toHaveAttribute('role', 'status');
    const cases: Array<[HTMLElement, string, string]> = [
      [width, '3001', 'Width set to 2048, the largest size'],
      [height, '100', 'Height set to 512, the smallest size'],
      [width, '1001', 'Width set to 1000, a multiple of 8'],
      [width, 'abc', 'Width kept at 1000: numbers only'],
      [height, '', 'Height kept at 512'],
    ];
    for (const [field, typed, said] of cases) {
      fireEvent.change(field, { target: { value: typed } });
      fireEvent.blur(field);
      expect(note).toHaveTextContent(said);
    }
    // Enter commits, and the blur that follows keeps the note.
    fireEvent.change(width, { target: { value: '4000' } });
    fireEvent.keyDown(width, { key: 'Enter' });
    fireEvent.blur(width);
    expect(note).toHaveTextContent('Width set to 2048, the largest size');
    // A size that stands as typed clears it.
    fireEvent.change(width, { target: { value: '768' } });
    fireEvent.blur(width);
    expect(note).toBeEmptyDOMElement();
    // And a note goes by itself.
    vi.useFakeTimers();
    try {
      fireEvent.change(width, { target: { value: '9999' } });
      fireEvent.blur(width);
      expect(note).toHaveTextContent('Width set to 2048, the largest size');
      act(() => vi.advanceTimersByTime(SIZE_NOTE_MS));
      expect(note).toBeEmptyDOMElement();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a blank prompt: Generate says 'Write a prompt first'; low credits keep the spec's 'Need 10 Credits' label", async () => {
    const user = userEvent.setup();
    renderPage({ credits: 5 });
    const button = screen.getByRole('button', { name: 'Need 10 Credits' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription('Write a prompt first');
    await user.type(screen.getByLabelText('Prompt'), 'A cat');
    expect(screen.queryByText('Write a prompt first')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Need 10 Credits' })).not.toHaveAccessibleDescription();
  });

  it('the hint goes once a prompt is written, and comes back when it is cleared', async () => {
    const user = userEvent.setup();
    renderPage();
    expect(generateButton()).toHaveAccessibleDescription('Write a prompt first');
    await user.type(screen.getByLabelText('Prompt'), '  ');
    expect(screen.getByText('Write a prompt first')).toBeVisible();
    await user.type(screen.getByLabelText('Prompt'), 'A cat');
    expect(generateButton()).toBeEnabled();
    expect(screen.queryByText('Write a prompt first')).not.toBeInTheDocument();
    await user.clear(screen.getByLabelText('Prompt'));
    expect(screen.getByText('Write a prompt first')).toBeVisible();
  });

  it('Enter in the prompt never submits; a blank prompt keeps Generate disabled', async () => {
    const user = userEvent.setup();
    const { sent } = renderPage();
    expect(generateButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Prompt'), '   ');
    expect(generateButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Prompt'), 'A cat{Enter}{Shift>}{Enter}{/Shift}');
    expect(sent).toHaveLength(0);
    expect(generateButton()).toBeEnabled();
  });

  it('under 10 credits: the dismissible banner and a disabled "Need 10 Credits" button', async () => {
    const user = userEvent.setup();
    renderPage({ credits: 5 });
    await user.type(screen.getByLabelText('Prompt'), 'A cat');
    expect(screen.getByRole('button', { name: 'Need 10 Credits' })).toBeDisabled();
    expect(screen.getByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/app/subscription');
    expect(screen.getByRole('link', { name: 'Top up' })).toHaveAttribute('href', '/app/credits');
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText('Insufficient Credits')).not.toBeInTheDocument();
  });

  it('choosing a character fills its LoRA and resets the LoRA power to 1', async () => {
    const user = userEvent.setup();
    const { sent, pending } = renderPage();
    const picker = screen.getByRole('combobox', { name: 'Character' });
    await screen.findByRole('option', { name: 'Dana' });
    expect(screen.getByLabelText('LoRA power')).toBeDisabled();
    await user.selectOptions(picker, 'Dana');
    fireEvent.change(screen.getByLabelText('LoRA power'), { target: { value: '1.37' } });
    await user.selectOptions(picker, 'Rob');
    expect(screen.getByLabelText('LoRA power')).toHaveValue('1');
    await user.type(screen.getByLabelText('Prompt'), 'Rob on a beach');
    await user.click(generateButton());
    expect(sent[0].loras).toEqual([{ path: '/media/loras/rob.safetensors', scale: 1 }]);
    await act(async () => pending[0].resolve());
  });

  it('remixSettings prefill the form with the seed cleared', async () => {
    renderPage({
      state: {
        remixSettings: {
          prompt: 'Remixed city',
          width: 576,
          height: 1024,
          steps: 40,
          guidance: 7.5,
          lora: { path: CHARACTERS[0].lora_file_url, scale: 0.8 },
        },
      },
    });
    expect(screen.getByLabelText('Prompt')).toHaveValue('Remixed city');
    expect(screen.getByLabelText('Width')).toHaveValue('576');
    expect(screen.getByLabelText('Height')).toHaveValue('1024');
    expect(screen.getByLabelText('Inference steps')).toHaveValue('40');
    expect(screen.getByLabelText('Guidance scale')).toHaveValue('7.5');
    expect(screen.getByLabelText('Seed', { exact: true })).toHaveValue('');
    await screen.findByRole('option', { name: 'Dana' });
    expect(screen.getByRole('combobox', { name: 'Character' })).toHaveValue(CHARACTERS[0].lora_file_url);
    expect(screen.getByLabelText('LoRA power')).toHaveValue('0.8');
  });

  it("?character=<id> (the 'character ready' e-mail's button) selects that character", async () => {
    renderPage({ search: `?character=${CHARACTERS[1].id}` });
    await screen.findByRole('option', { name: 'Rob' });
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Character' })).toHaveValue(CHARACTERS[1].lora_file_url));
  });

  it('selectedCharacter selects the character', async () => {
    renderPage({ state: { selectedCharacter: CHARACTERS[1] } });
    await screen.findByRole('option', { name: 'Rob' });
    expect(screen.getByRole('combobox', { name: 'Character' })).toHaveValue(CHARACTERS[1].lora_file_url);
  });
});

describe('sizeNote', () => {
  it('is silent when the typed number stands, and names the rule that changed it otherwise', () => {
    expect(sizeNote('Width', '1024', 1024)).toBeNull();
    expect(sizeNote('Width', ' 1024.0 ', 1024)).toBeNull();
    expect(sizeNote('Width', '1023.5', 1016)).toBe('Width set to 1016, a multiple of 8');
    expect(sizeNote('Height', '2049', 2048)).toBe('Height set to 2048, the largest size');
    expect(sizeNote('Height', '0', 512)).toBe('Height set to 512, the smallest size');
    expect(sizeNote('Width', '-800', 576)).toBe('Width kept at 576: numbers only');
    expect(sizeNote('Width', '  ', 576)).toBe('Width kept at 576');
  });
});

describe('toGenerationRequest', () => {
  const base = { ...initialFormState(), prompt: '  A fox  ' };

  it('uses the seed only when locked and non-empty; otherwise a random one below 2147483647', () => {
    expect(toGenerationRequest({ ...base, seed: '42', seedLocked: true }).seed).toBe(42);
    expect(toGenerationRequest({ ...base, seed: '42', seedLocked: false }, () => 0.5).seed).toBe(1073741823);
    expect(toGenerationRequest({ ...base, seed: '', seedLocked: true }, () => 0.25).seed).toBe(536870911);
    expect(toGenerationRequest(base, () => 0.9999999999)).toMatchObject({ seed: expect.any(Number) });
    expect(toGenerationRequest(base, () => 0.9999999999).seed).toBeLessThan(2147483647);
  });

  it('rounds dimensions down to a multiple of 8 again and sends the spec defaults', () => {
    expect(toGenerationRequest({ ...base, width: 1023, height: 601 })).toMatchObject({
      prompt: 'A fox',
      image_size: { width: 1016, height: 600 },
      loras: [],
      num_inference_steps: 28,
      guidance_scale: 3.5,
      num_images: 1,
      enable_safety_checker: true,
      output_format: 'jpeg',
    });
  });
});

describe('the result', () => {
  it('carries the viewer’s actions: Upscale, Edit, Regenerate with Keep the seed, Favourite, and the likeness', async () => {
    const fake = renderPage({ state: { selectedCharacter: CHARACTERS[0] } });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Prompt'), 'danap at the beach');
    await clickWhenReady(user);
    await act(async () => fake.pending.shift()!.resolve());
    const result = screen.getByRole('region', { name: 'Result' });
    await within(result).findByRole('img', { name: 'danap at the beach' });
    const actions = within(result).getByTestId('generation-actions');
    for (const name of ['Upscale 2×5 credits', 'Upscale 4×10 credits', 'Edit with a prompt', 'Regenerate', 'Favorite']) {
      expect(within(actions).getByRole('button', { name })).toBeEnabled();
    }
    expect(within(actions).getByRole('checkbox', { name: 'Keep the seed' })).not.toBeChecked();
    expect(within(result).getByTestId('likeness-badge')).toHaveTextContent('Weak likeness');
    expect(within(result).getByTestId('likeness-hint')).toBeInTheDocument();
    // Download and Copy URL stay.
    expect(within(result).getByRole('button', { name: 'Download' })).toBeInTheDocument();
    expect(within(result).getByRole('button', { name: 'Copy URL' })).toBeInTheDocument();

    await user.click(within(actions).getByRole('button', { name: 'Favorite' }));
    expect(await within(actions).findByRole('button', { name: 'Favorited' })).toHaveAttribute('aria-pressed', 'true');
    expect(fake.favourited).toEqual(['g1']);
  });
});
