// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState, type ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS, TIMINGS } from '@common/product';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { Backend, Me, RequestOptions } from '@/backend/port';
import { meKey } from '@/session/api';
import { ExtractPromptPanel } from '@/features/create-image/components/extract-prompt-panel';
import { usePromptExtraction } from '@/features/create-image/hooks/use-prompt-extraction';
import { localBackendOver } from '../support/fake-backend';

type Handler = (opts: RequestOptions) => Promise<unknown>;

interface Call {
  path: string;
  body: unknown;
}

const UPLOADED_URL = '/media/uploads/u1/photo.jpg';
const DETAILED_TEXT = 'A close-up portrait photo of a smiling woman with long dark hair, warm light.';

/** A Backend whose upload and caption answers each test chooses; every call is recorded. */
function fakeBackend(handlers: Partial<Record<string, Handler>>) {
  const calls: Call[] = [];
  const backend: Backend = localBackendOver(async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    calls.push({ path, body: opts.body });
    const handler = handlers[path];
    if (!handler) throw new Error(`unexpected ${path}`);
    return (await handler(opts)) as T;
  });
  return { backend, calls };
}

const happyHandlers: Record<string, Handler> = {
  '/api/upload': async () => ({ success: true, url: UPLOADED_URL }),
  '/api/image/detail-caption': async () => ({ results: DETAILED_TEXT }),
  '/api/image/fast-caption': async () => ({ results: 'a smiling woman, warm light' }),
};

/** The panel as the create-image form uses it: a button opens it, 'Use This Prompt' fills a prompt and closes it. */
function Harness() {
  const [open, setOpen] = useState(true);
  const [prompt, setPrompt] = useState('');
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Extract from Image
      </button>
      <output aria-label="Form prompt">{prompt}</output>
      <ExtractPromptPanel
        open={open}
        onOpenChange={setOpen}
        onUsePrompt={(text) => {
          setPrompt(text);
          setOpen(false);
        }}
      />
    </>
  );
}

function renderPanel(handlers: Partial<Record<string, Handler>> = happyHandlers, credits = 10) {
  const fake = fakeBackend(handlers);
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, {
    id: 'u1',
    clerk_id: 'k1',
    email: 'dana@example.com',
    full_name: 'Dana',
    credits,
    updated_at: '',
    subscription_status: null,
    subscription_plan: null,
    creem_customer_id: null,
    image_url: null,
    joined_at: '',
  });
  render(
    <AppProviders backend={fake.backend} queryClient={client}>
      <Harness />
    </AppProviders>,
  );
  return fake;
}

const photo = (name = 'photo.jpg', type = 'image/jpeg', size = 2048) => new File([new Uint8Array(size)], name, { type });
const fileInput = () => screen.getByLabelText('Choose an image') as HTMLInputElement;
const generateButton = () =>
  screen.getByRole('button', { name: /Generate Prompt|Generate Again|Uploading image|Analyzing image|Need \d+ Credits/ });
const alertText = () => screen.getByRole('alert').textContent;
// The accept attribute would hide wrong types from the picker, but a drop or "All files" still delivers them.
const setupUser = () => userEvent.setup({ applyAccept: false });

async function extract(user: ReturnType<typeof setupUser>, file = photo()) {
  await user.upload(fileInput(), file);
  await user.click(generateButton());
}

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('choosing a file', () => {
  it('starts with Detailed selected and shows both analysis costs', () => {
    renderPanel();
    const dialog = screen.getByRole('dialog', { name: 'Extract Prompt from Image' });
    expect(within(dialog).getByRole('radio', { name: /Detailed/ })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: /Fast/ })).not.toBeChecked();
    expect(within(dialog).getByRole('radio', { name: /Fast/ }).closest('label')).toHaveTextContent('1 credit');
    expect(
      within(dialog)
        .getByRole('radio', { name: /Detailed/ })
        .closest('label'),
    ).toHaveTextContent('2 credits');
    expect(generateButton()).toBeDisabled();
  });

  it('shows a preview of an accepted file and enables Generate', async () => {
    const user = setupUser();
    renderPanel();
    await user.upload(fileInput(), photo('beach.webp', 'image/webp'));
    expect(screen.getByRole('img', { name: 'Selected image preview' })).toHaveAttribute('src', 'blob:preview');
    expect(screen.getByText('beach.webp')).toBeInTheDocument();
    expect(generateButton()).toBeEnabled();
  });

  it('refuses a file that is not JPG, PNG or WEBP and clears the selection', async () => {
    const user = setupUser();
    const { calls } = renderPanel();
    await user.upload(fileInput(), photo('portrait.jpg'));
    await user.upload(fileInput(), photo('notes.gif', 'image/gif'));
    expect(alertText()).toBe('Invalid file type (JPG, PNG, WEBP only).');
    expect(screen.queryByRole('img', { name: 'Selected image preview' })).not.toBeInTheDocument();
    expect(generateButton()).toBeDisabled();
    expect(calls).toHaveLength(0);
  });

  it('refuses a file over 5MB and clears the selection; exactly 5MB is fine', async () => {
    const user = setupUser();
    renderPanel();
    await user.upload(fileInput(), photo('huge.jpg', 'image/jpeg', LIMITS.uploadMaxBytes + 1));
    expect(alertText()).toBe('File is too large (max 5MB).');
    expect(screen.queryByRole('img', { name: 'Selected image preview' })).not.toBeInTheDocument();
    expect(generateButton()).toBeDisabled();

    await user.upload(fileInput(), photo('just-fits.png', 'image/png', LIMITS.uploadMaxBytes));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Selected image preview' })).toBeInTheDocument();
  });

  it('takes a file dropped on the drop zone', () => {
    renderPanel();
    fireEvent.drop(screen.getByTestId('extract-drop-zone'), { dataTransfer: { files: [photo('dropped.png', 'image/png')] } });
    expect(screen.getByText('dropped.png')).toBeInTheDocument();
    fireEvent.drop(screen.getByTestId('extract-drop-zone'), { dataTransfer: { files: [photo('doc.pdf', 'application/pdf')] } });
    expect(alertText()).toBe('Invalid file type (JPG, PNG, WEBP only).');
  });
});

describe('extracting', () => {
  it('uploads, runs the Detailed caption, and "Use This Prompt" fills the form and closes the panel', async () => {
    const user = setupUser();
    const { calls } = renderPanel();
    await extract(user);
    expect(await screen.findByText(DETAILED_TEXT)).toBeInTheDocument();
    expect(calls.map((c) => c.path)).toEqual(['/api/upload', '/api/image/detail-caption']);
    expect((calls[0].body as FormData).get('file')).toBeInstanceOf(File);
    expect(calls[1].body).toEqual({ image_url: UPLOADED_URL });

    // Fast on the same file reuses the upload.
    await user.click(screen.getByRole('radio', { name: /Fast/ }));
    await user.click(generateButton());
    expect(await screen.findByText('a smiling woman, warm light')).toBeInTheDocument();
    expect(calls.map((c) => c.path)).toEqual(['/api/upload', '/api/image/detail-caption', '/api/image/fast-caption']);

    await user.click(screen.getByRole('button', { name: 'Use This Prompt' }));
    expect(screen.getByLabelText('Form prompt')).toHaveTextContent('a smiling woman, warm light');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('shows the busy state while uploading and analysing', async () => {
    const user = setupUser();
    let finishUpload!: () => void;
    let finishCaption!: () => void;
    renderPanel({
      '/api/upload': () => new Promise((resolve) => (finishUpload = () => resolve({ success: true, url: UPLOADED_URL }))),
      '/api/image/detail-caption': () => new Promise((resolve) => (finishCaption = () => resolve({ results: DETAILED_TEXT }))),
    });
    await extract(user);
    expect(generateButton()).toHaveTextContent('Uploading image...');
    expect(generateButton()).toBeDisabled();
    await act(async () => finishUpload());
    expect(generateButton()).toHaveTextContent('Analyzing image...');
    expect(generateButton()).toBeDisabled();
    await act(async () => finishCaption());
    expect(screen.getByText(DETAILED_TEXT)).toBeInTheDocument();
    expect(generateButton()).toHaveTextContent('Generate Again');
  });

  it('asks for credits instead of generating when the balance is short', async () => {
    const user = setupUser();
    renderPanel(happyHandlers, 1);
    await user.upload(fileInput(), photo());
    expect(generateButton()).toHaveTextContent('Need 2 Credits');
    expect(generateButton()).toBeDisabled();
    await user.click(screen.getByRole('radio', { name: /Fast/ }));
    expect(generateButton()).toHaveTextContent('Generate Prompt');
    expect(generateButton()).toBeEnabled();
  });
});

describe('error messages, inline in a red box', () => {
  const cases: Array<[string, Partial<Record<string, Handler>>, string]> = [
    [
      'a refused upload',
      {
        '/api/upload': async () =>
          Promise.reject(
            new ApiError(413, '{"message":"The upload is too large.","code":"payload_too_large"}', 'The upload is too large.'),
          ),
      },
      'Upload failed: 413 - The upload is too large.',
    ],
    [
      'an upload refused with a non-JSON body',
      { '/api/upload': async () => Promise.reject(new ApiError(502, 'Bad Gateway', 'Request failed (502)')) },
      'Upload failed: 502 - Bad Gateway',
    ],
    [
      'an upload answer without success and url',
      { '/api/upload': async () => ({ url: UPLOADED_URL }) },
      'Upload failed: Invalid response format',
    ],
    [
      'a refused caption',
      {
        '/api/upload': happyHandlers['/api/upload'],
        '/api/image/detail-caption': async () =>
          Promise.reject(
            new ApiError(402, '{"message":"You need 2 credits for this.","code":"insufficient_credits"}', 'You need 2 credits for this.'),
          ),
      },
      'API error: 402 - You need 2 credits for this.',
    ],
    [
      'a caption answer without results',
      { '/api/upload': happyHandlers['/api/upload'], '/api/image/detail-caption': async () => ({ text: 'hello' }) },
      'Invalid API response: missing results field',
    ],
    [
      'a network failure',
      {
        '/api/upload': happyHandlers['/api/upload'],
        '/api/image/detail-caption': async () => Promise.reject(new TypeError('Failed to fetch')),
      },
      'Failed to generate prompt with Detailed. Please try again.',
    ],
  ];

  it.each(cases)('%s', async (_name, handlers, message) => {
    const user = setupUser();
    renderPanel(handlers);
    await extract(user);
    await waitFor(() => expect(alertText()).toBe(message));
    expect(screen.getByRole('alert')).toHaveClass('bg-danger-soft');
    expect(generateButton()).toHaveTextContent('Generate Prompt');
    expect(screen.queryByRole('button', { name: 'Use This Prompt' })).not.toBeInTheDocument();
    expect(console.error).toHaveBeenCalled();
  });

  it('names the Fast analysis in the fallback message', async () => {
    const user = setupUser();
    renderPanel({ '/api/upload': async () => Promise.reject(new TypeError('Failed to fetch')) });
    await user.upload(fileInput(), photo());
    await user.click(screen.getByRole('radio', { name: /Fast/ }));
    await user.click(generateButton());
    await waitFor(() => expect(alertText()).toBe('Failed to generate prompt with Fast. Please try again.'));
  });
});

describe('closing', () => {
  it(`keeps the state ${TIMINGS.panelResetMs} ms after closing (the closing animation), then resets it`, () => {
    const fake = fakeBackend(happyHandlers);
    const wrapper = ({ children }: { children: ReactNode }) => <AppProviders backend={fake.backend}>{children}</AppProviders>;
    const { result, rerender } = renderHook(({ open }) => usePromptExtraction(open), { initialProps: { open: true }, wrapper });
    act(() => result.current.chooseFile(photo()));
    act(() => result.current.setAnalysis('fast'));

    vi.useFakeTimers();
    rerender({ open: false });
    act(() => vi.advanceTimersByTime(TIMINGS.panelResetMs - 1));
    expect(result.current.file).not.toBeNull();
    expect(result.current.analysis).toBe('fast');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.file).toBeNull();
    expect(result.current.previewUrl).toBeNull();
    expect(result.current.analysis).toBe('detailed');
  });

  it('shows a fresh panel when reopened, even straight away', async () => {
    const user = setupUser();
    renderPanel();
    await user.click(screen.getByRole('radio', { name: /Fast/ }));
    await extract(user);
    expect(await screen.findByText('a smiling woman, warm light')).toBeInTheDocument();

    vi.useFakeTimers();
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(TIMINGS.panelResetMs / 2));
    fireEvent.click(screen.getByRole('button', { name: 'Extract from Image' }));
    const expectFresh = () => {
      expect(screen.queryByText('a smiling woman, warm light')).not.toBeInTheDocument();
      expect(screen.queryByRole('img', { name: 'Selected image preview' })).not.toBeInTheDocument();
      expect(screen.getByRole('radio', { name: /Detailed/ })).toBeChecked();
      expect(generateButton()).toHaveTextContent('Generate Prompt');
      expect(generateButton()).toBeDisabled();
    };
    expectFresh();

    fireEvent.change(fileInput(), { target: { files: [photo()] } });
    expect(screen.getByRole('img', { name: 'Selected image preview' })).toBeInTheDocument();
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    act(() => vi.advanceTimersByTime(TIMINGS.panelResetMs));
    fireEvent.click(screen.getByRole('button', { name: 'Extract from Image' }));
    expectFresh();
  });

  it('an error is cleared by the reset too', async () => {
    const user = setupUser();
    renderPanel();
    await user.upload(fileInput(), photo('notes.txt', 'text/plain'));
    expect(alertText()).toBe('Invalid file type (JPG, PNG, WEBP only).');
    vi.useFakeTimers();
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    act(() => vi.advanceTimersByTime(TIMINGS.panelResetMs));
    fireEvent.click(screen.getByRole('button', { name: 'Extract from Image' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
