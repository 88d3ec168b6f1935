// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PhotoCheck, PhotoProblem } from '@common/photo-check';
import type { TrainingView } from '@common/training';
import { ApiError } from '@/backend/api-error';
import { fakeBackend, me } from '../support/fake-backend';
import { distinctHash, fillForm, photoIndex, photos, record, renderTrainingPage, verdict } from '../support/training-page';
import { stubPhoneScreen } from '../support/phone';
import { problemQuestion } from '@/features/training/lib/problem-question';

const SUCCESS_DESKTOP =
  'Training submitted successfully! It will take 5-10 minutes to complete. You can check the progress in the Previous Trainings panel.';

function renderPage(
  opts: {
    credits?: number;
    upload?: () => unknown;
    submit?: (body: unknown) => unknown;
    check?: (index: number) => PhotoCheck | Promise<PhotoCheck>;
  } = {},
) {
  let trainings: TrainingView[] = [];
  const fake = fakeBackend({
    routes: {
      '/api/trainings': () => ({ items: trainings }),
      '/api/trainings/check-photo': async (body) => {
        const index = await photoIndex(body);
        const check = await (opts.check ?? (() => verdict()))(index);
        return { ...check, hash: check.hash ?? (check.faces === 1 ? distinctHash(index) : null) };
      },
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
  renderTrainingPage(fake.backend, me({ credits: opts.credits ?? 1000 }));
  return { ...fake, setTrainings: (list: TrainingView[]) => (trainings = list) };
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
    // One truth: the 'submitted, it will take 5-10 minutes' banner gives way to 'ready'.
    expect(screen.queryByText(SUCCESS_DESKTOP)).not.toBeInTheDocument();
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
    // Said beside the button too, where the eye is, and focused so it is read out; gone once a 4th photo is in.
    const beside = screen.getByTestId('training-submit-problem');
    expect(beside).toHaveTextContent('Please upload at least 4 images for better results');
    expect(beside).toHaveFocus();
    await user.upload(screen.getByLabelText('Photos'), photos(1));
    await waitFor(() => expect(screen.queryByTestId('training-submit-problem')).not.toBeInTheDocument());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Remove photo 4' }));
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

  it('says why a click did nothing once on a phone, beside the button (the banners sit right under it there)', async () => {
    stubPhoneScreen();
    try {
      renderPage();
      const user = await fillForm(3);
      await user.click(screen.getByRole('button', { name: 'Start Training' }));
      expect(await screen.findByTestId('training-submit-problem')).toHaveTextContent('Please upload at least 4 images for better results');
      expect(screen.getAllByText('Please upload at least 4 images for better results')).toHaveLength(1);
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('photo checks on the training page', () => {
  const problems: PhotoProblem[][] = [[], ['blurry'], [], ['too-dark'], [], [], [], [], [], [], [], []];

  it('badges every photo in words, sums them up beside the guidance, and removes the ones with problems in one tap', async () => {
    const fake = renderPage({ check: (i) => verdict(problems[i]) });
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Photos'), photos(12));
    const summary = screen.getByTestId('photo-check-summary');
    await waitFor(() => expect(summary).toHaveTextContent('12 photos: 10 good, 2 with problems'));
    const items = within(screen.getByRole('list', { name: 'Selected photos' })).getAllByRole('listitem');
    expect(items.map((li) => li.getAttribute('aria-label'))).toEqual([
      'Photo 1: Good',
      'Photo 2: Blurry',
      'Photo 3: Good',
      'Photo 4: Too dark',
      ...Array.from({ length: 8 }, (_, i) => `Photo ${i + 5}: Good`),
    ]);
    expect(within(summary).getByText('Photo 2: Blurry.')).toBeInTheDocument();
    expect(summary).toHaveTextContent('Use a sharper photo, taken with a steady hand.');
    expect(screen.getByText('Upload 10–20 high-quality photos of the same person').closest('div')).toContainElement(summary);
    // The copy checked is the photo itself here (no canvas in the test browser), one request per photo.
    expect(fake.request.mock.calls.filter(([path]) => path === '/api/trainings/check-photo')).toHaveLength(12);

    await user.click(screen.getByRole('button', { name: 'Remove 2 photos with problems' }));
    expect(within(screen.getByRole('list', { name: 'Selected photos' })).getAllByRole('listitem')).toHaveLength(10);
    expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('10 photos: 10 good');
    expect(screen.queryByRole('button', { name: /photos? with (a )?problems?/ })).toBeNull();
  });

  it('names a repeated photo and a photo it cannot read', async () => {
    renderPage({
      check: (i) =>
        i === 2
          ? verdict([], { hash: 'abcdef0123456789' })
          : i === 3
            ? verdict([], { hash: 'abcdef0123456788' })
            : i === 1
              ? verdict(['unreadable'], { faces: 0, hash: null, detail: 'HEIC and AVIF photos cannot be used. Choose JPG, PNG or WEBP.' })
              : verdict(),
    });
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Photos'), photos(4));
    const list = screen.getByRole('list', { name: 'Selected photos' });
    await waitFor(() =>
      expect(
        within(list)
          .getAllByRole('listitem')
          .map((li) => li.getAttribute('aria-label')),
      ).toEqual(['Photo 1: Good', "Photo 2: Can't be read", 'Photo 3: Good', 'Photo 4: Same as photo 3']),
    );
    expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('HEIC and AVIF photos cannot be used. Choose JPG, PNG or WEBP.');
  });

  it('names a face that most of the photos do not match, says the photos show different people, and still lets them train', async () => {
    // The server's embeddings: photos 1, 2, 4 and 5 show one person, photo 3 someone else (orthogonal faces).
    const dana = [1, 0, 0];
    const alex = [0, 1, 0];
    renderPage({ check: (i) => verdict(i === 1 ? ['too-dark'] : [], { embedding: i === 2 ? alex : dana }) });
    const user = await fillForm(5);
    const list = screen.getByRole('list', { name: 'Selected photos' });
    const summary = screen.getByTestId('photo-check-summary');
    await waitFor(() => expect(summary).toHaveTextContent('5 photos: 3 good, 2 with problems, photos show different people'));
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.getAttribute('aria-label')),
    ).toEqual(['Photo 1: Good', 'Photo 2: Too dark', 'Photo 3: Not the same person', 'Photo 4: Good', 'Photo 5: Good']);
    expect(summary).toHaveTextContent(
      'Photo 3: Not the same person. Most of your photos show someone else. Use photos of one person only.',
    );
    // A warning, like the others: the form still submits.
    expect(screen.getByRole('button', { name: 'Start Training' })).toBeEnabled();

    // Removed, the rest agree again.
    await user.click(screen.getByRole('button', { name: 'Remove 2 photos with problems' }));
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('3 photos: 3 good'));
    expect(screen.getByTestId('photo-check-summary')).not.toHaveTextContent('different people');
  });

  it('asks once before training photos with problems, naming them: back to the photos, or train anyway', async () => {
    const dana = [1, 0, 0];
    const alex = [0, 1, 0];
    const fake = renderPage({ check: (i) => verdict([], { embedding: i === 2 || i === 4 ? alex : dana }) });
    const user = await fillForm(6);
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('6 photos: 4 good, 2 with problems'));
    const uploads = () => fake.request.mock.calls.filter(([path]) => path === '/api/upload').length;

    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    const question = await screen.findByRole('dialog', { name: '2 photos may not show the same person — train anyway?' });
    expect(within(question).getByTestId('problem-photos')).toHaveTextContent('Photo 3: Not the same personPhoto 5: Not the same person');
    expect(question).toHaveTextContent('Training uses 500 credits');
    await user.click(within(question).getByRole('button', { name: 'Review photos' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(uploads()).toBe(0);

    // Asked again while the photos are the same; answered, the training goes, once.
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Train anyway' }));
    expect(await screen.findByText(SUCCESS_DESKTOP)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(uploads()).toBe(1);
  });

  it('says which dropped files are not photos and leaves them out', async () => {
    renderPage();
    const user = userEvent.setup({ applyAccept: false });
    const pdf = new File(['%PDF-1.4'], 'report.pdf', { type: 'application/pdf' });
    await user.upload(screen.getByLabelText('Photos'), [...photos(1), pdf]);
    expect(screen.getByRole('alert')).toHaveTextContent(
      '“report.pdf” is not a photo, so it was not added. Choose JPG, PNG or WEBP images.',
    );
    expect(within(screen.getByRole('list', { name: 'Selected photos' })).getAllByRole('listitem')).toHaveLength(1);
    const notes = new File(['hi'], 'notes.txt', { type: 'text/plain' });
    await user.upload(screen.getByLabelText('Photos'), [pdf, notes]);
    expect(screen.getByTestId('photos-left-out')).toHaveTextContent(
      '2 files are not photos (report.pdf, notes.txt), so they were not added.',
    );
    // Gone with the next choice of photos only.
    await user.upload(screen.getByLabelText('Photos'), photos(1));
    expect(screen.queryByTestId('photos-left-out')).toBeNull();
  });

  it('words the question by the photos’ problems', () => {
    expect(problemQuestion(['blurry'])).toBe('1 photo is blurry — train anyway?');
    expect(problemQuestion(['no-face', 'no-face'])).toBe('2 photos show no face — train anyway?');
    expect(problemQuestion(['different-person'])).toBe('1 photo may not show the same person — train anyway?');
    expect(problemQuestion(['too-dark', 'different-person', 'blurry'])).toBe('3 photos have problems — train anyway?');
  });

  it('compares no faces while fewer than three photos show one', async () => {
    renderPage({ check: (i) => verdict([], { embedding: i === 0 ? [1, 0] : [0, 1] }) });
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Photos'), photos(2));
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('2 photos: 2 good'));
    expect(screen.getByTestId('photo-check-summary')).not.toHaveTextContent('different people');
  });

  it('shows progress per photo and never blocks the form while checking', async () => {
    const pending: (() => void)[] = [];
    const fake = renderPage({ check: () => new Promise<PhotoCheck>((resolve) => pending.push(() => resolve(verdict()))) });
    const user = await fillForm(4);
    const list = screen.getByRole('list', { name: 'Selected photos' });
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(within(list).getAllByText('Checking…')).toHaveLength(2);
    expect(within(list).getAllByText('Waiting…')).toHaveLength(2);
    expect(fake.request.mock.calls.filter(([path]) => path === '/api/trainings/check-photo')).toHaveLength(2);
    expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('4 photos: 0 good, 4 being checked');
    // The form stays usable: the name can change and the training can be sent (the server checks again).
    await user.type(screen.getByLabelText('Character name'), ' Park');
    expect(screen.getByRole('button', { name: 'Start Training' })).toBeEnabled();
    while (pending.length) pending.shift()!();
    // Two at a time: the next two start once the first two are answered.
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('4 photos: 2 good, 2 being checked');
    while (pending.length) pending.shift()!();
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('4 photos: 4 good'));
  });

  it('says when a photo could not be checked and checks it again on request', async () => {
    let refuse = true;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    renderPage({
      check: () => {
        if (refuse) throw new ApiError(429, '{"message":"Too many photos checked in a short time."}', 'x');
        return verdict();
      },
    });
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Photos'), photos(1));
    const badge = await screen.findByText('Not checked');
    expect(badge.closest('[data-testid="photo-badge"]')).toHaveAttribute('title', 'Too many photos checked in a short time.');
    expect(warn).toHaveBeenCalledWith('photo check failed', expect.any(ApiError));
    refuse = false;
    await user.click(screen.getByRole('button', { name: 'Check again' }));
    expect(await screen.findByText('Good')).toBeInTheDocument();
  });

  it('refuses to send an NSFW photo or too few photos of one person, before any upload', async () => {
    const fake = renderPage({ check: (i) => verdict(i === 1 ? ['not-allowed'] : []) });
    const user = await fillForm(5);
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('5 photos: 4 good, 1 with a problem'));
    expect(screen.getByRole('listitem', { name: 'Photo 2: Not allowed' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Photo 2 is not allowed: NSFW content is prohibited. Remove it to continue.',
    );
    expect(fake.request.mock.calls.some(([path]) => path === '/api/upload')).toBe(false);
    cleanup();

    const again = renderPage({ check: (i) => verdict(i === 0 ? ['no-face'] : i === 1 ? ['several-people'] : []) });
    const user2 = await fillForm(5);
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('5 photos: 3 good, 2 with problems'));
    await user2.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'At least 4 photos must show exactly one face; only 3 do. Add photos of the person alone.',
    );
    expect(again.request.mock.calls.some(([path]) => path === '/api/upload')).toBe(false);
  });

  it('shows the server’s refusal at submit, which names the photos, in the spec’s wording', async () => {
    renderPage({
      submit: () => {
        throw new ApiError(
          422,
          '{"code":"photos_refused","message":"Photo 3 (photo-03.jpg) is not allowed: NSFW content is prohibited. Remove it to continue."}',
          'x',
        );
      },
    });
    const user = await fillForm(4);
    await waitFor(() => expect(screen.getByTestId('photo-check-summary')).toHaveTextContent('4 photos: 4 good'));
    await user.click(screen.getByRole('button', { name: 'Start Training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Training submission failed: 422 - Photo 3 (photo-03.jpg) is not allowed: NSFW content is prohibited. Remove it to continue.',
    );
  });
});
