// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TrainingView } from '@common/training';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import { meKey, type Me } from '@/features/session/api';
import CharacterTrainingPage from '@/pages/app/character-training-page';
import { fakeBackend, me } from '../support/fake-backend';

const SUCCESS_DESKTOP =
  'Training submitted successfully! It will take 5-10 minutes to complete. You can check the progress in the Previous Trainings panel.';

function record(overrides: Partial<TrainingView> = {}): TrainingView {
  return {
    id: 't1',
    character_name: 'Dana',
    trigger_word: 'jamie',
    gender: 'other',
    hair_color: 'other',
    status: 'IN_PROGRESS',
    created_at: '2026-11-21T10:00:00.000Z',
    lora_file_url: null,
    request_id: 'req-1',
    result: null,
    error: null,
    ...overrides,
  };
}

function CreateImageProbe() {
  const location = useLocation();
  return <pre data-testid="nav-state">{JSON.stringify(location.state)}</pre>;
}

function renderPage(opts: { credits?: number; upload?: () => unknown; submit?: (body: unknown) => unknown } = {}) {
  let trainings: TrainingView[] = [];
  const fake = fakeBackend({
    routes: {
      '/api/trainings': () => ({ items: trainings }),
      '/api/upload': opts.upload ?? (() => ({ success: true, url: '/media/uploads/u/a.zip' })),
      '/api/image/submit-lora-training':
        opts.submit ??
        (() => {
          // The server has the new row from now on.
          trainings = [record()];
          return { request_id: 'req-1' };
        }),
    },
  });
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, me({ credits: opts.credits ?? 1000 }));
  render(
    <AppProviders backend={fake.backend} queryClient={client}>
      <MemoryRouter initialEntries={['/app/character-training']}>
        <Routes>
          <Route path="/app/character-training" element={<CharacterTrainingPage />} />
          <Route path="/app/create-image" element={<CreateImageProbe />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return { ...fake, setTrainings: (list: TrainingView[]) => (trainings = list) };
}

const photos = (n: number) => Array.from({ length: n }, (_, i) => new File([new Uint8Array([0xff, 0xd8, 0xff, i])], `p${i}.jpg`, { type: 'image/jpeg' }));

async function fillForm(n = 4) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Character name'), 'Dana');
  await user.upload(screen.getByLabelText('Photos'), photos(n));
  return user;
}

beforeEach(() => {
  let n = 0;
  URL.createObjectURL = vi.fn(() => `blob:preview-${n++}`);
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('character training page', () => {
  it('packs the photos into training_images.zip, submits the spec payload and follows the record to FAILED', async () => {
    const fake = renderPage();
    expect(screen.getByLabelText('Trigger word')).toHaveValue('jamie');
    expect(screen.getByLabelText('Trigger word')).toHaveAttribute('placeholder', 'jamie');
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByText(SUCCESS_DESKTOP)).toBeInTheDocument();

    const upload = fake.request.mock.calls.find(([path]) => path === '/api/upload')!;
    const file = (upload[1]!.body as FormData).get('file') as File;
    expect([file.name, file.type]).toEqual(['training_images.zip', 'application/zip']);
    const submit = fake.request.mock.calls.find(([path]) => path === '/api/image/submit-lora-training')!;
    expect(submit[1]!.body).toEqual({
      images_data_url: '/media/uploads/u/a.zip',
      trigger_word: 'jamie',
      create_masks: true,
      steps: 1000,
      is_style: false,
      character_name: 'Dana',
      gender: 'other',
      hair_color: 'other',
    });
    // The form is cleared and the new training is on top, running.
    expect(screen.getByLabelText('Character name')).toHaveValue('');
    const list = screen.getByRole('list', { name: 'Trainings' });
    expect(within(list).getByText('Training')).toBeInTheDocument();

    fake.setTrainings([record({ status: 'FAILED', error: 'The photos could not be used.' })]);
    fake.emit({ type: 'training', action: 'updated', id: 't1', status: 'FAILED' });
    expect(await screen.findByRole('alert')).toHaveTextContent('The photos could not be used.');
    expect(within(list).getByText('Failed')).toBeInTheDocument();
  });

  it('shows completion of the current request and sends the character to the create page', async () => {
    const fake = renderPage();
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await screen.findByText(SUCCESS_DESKTOP);
    fake.setTrainings([record({ status: 'COMPLETED', lora_file_url: '/media/loras/u/t1.json', result: { ok: true } })]);
    fake.emit({ type: 'training', action: 'updated', id: 't1', status: 'COMPLETED' });
    expect(await screen.findByText('Your character is ready')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Generate with this character' }));
    expect(JSON.parse(screen.getByTestId('nav-state').textContent!)).toEqual({
      selectedCharacter: { id: 't1', character_name: 'Dana', trigger_word: 'jamie', lora_file_url: '/media/loras/u/t1.json' },
    });
  });

  it('a failed training without a stored error reads "Training failed. Please try again."', async () => {
    const fake = renderPage();
    const user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await screen.findByText(SUCCESS_DESKTOP);
    fake.setTrainings([record({ status: 'FAILED' })]);
    fake.emit({ type: 'training', action: 'updated', id: 't1', status: 'FAILED' });
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Training failed. Please try again.'));
  });

  it('says why an upload or a submission failed, and falls back to the generic message', async () => {
    renderPage({
      upload: () => {
        throw new ApiError(413, '{"message":"The upload is too large."}', 'The upload is too large.');
      },
    });
    let user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Upload failed: 413 - The upload is too large.');
    cleanup();

    renderPage({
      submit: () => {
        throw new ApiError(402, '{"message":"This needs 500 credits; you have 0."}', 'x');
      },
    });
    user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Training submission failed: 402 - This needs 500 credits; you have 0.');
    cleanup();

    renderPage({
      submit: () => {
        throw new Error('socket hang up');
      },
    });
    user = await fillForm(4);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred during training. Please try again.');
  });

  it('validates the photo count and the name, and locks submit without credits', async () => {
    renderPage();
    const user = await fillForm(3);
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please upload at least 4 images for better results');
    await user.clear(screen.getByLabelText('Character name'));
    await user.tab();
    expect(screen.getByText('Please enter a character name')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start Training' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Remove photo 1' }));
    expect(within(screen.getByRole('list', { name: 'Selected photos' })).getAllByRole('listitem')).toHaveLength(2);
    cleanup();

    renderPage({ credits: 499 });
    await fillForm(4);
    expect(screen.getByText('Insufficient credits')).toBeInTheDocument();
    expect(screen.getByText('You need 500 credits to train characters. You currently have 499 credits.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Need 500 Credits' })).toHaveAttribute('href', '/app/subscription');
    expect(screen.getByRole('button', { name: 'Start Training' })).toBeDisabled();
  });
});
