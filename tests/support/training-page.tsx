/** The character training page's test material: a training row, the photos, the server's verdicts, the form. */
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { AppProviders, createQueryClient } from '@/app/providers';
import type { Backend, Me } from '@/backend/port';
import { meKey } from '@/session/api';
import CharacterTrainingPage from '@/pages/app/character-training-page';
import type { PhotoCheck, PhotoProblem } from '@common/photo-check';
import type { TrainingView } from '@common/training';

export function record(overrides: Partial<TrainingView> = {}): TrainingView {
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
    progress: null,
    ...overrides,
  };
}

/** A verdict as the server gives it. */
export function verdict(problems: PhotoProblem[] = [], over: Partial<PhotoCheck> = {}): PhotoCheck {
  const faces = problems.includes('no-face') ? 0 : problems.includes('several-people') ? 2 : 1;
  return { problems, faces, width: 1200, height: 1600, hash: null, embedding: null, detail: null, ...over };
}

/** A face hash far from every other photo's (16 bits or more apart), unless a test gives one. */
export const distinctHash = (index: number) => (index % 16).toString(16).repeat(16);

/** The photo a check request carries: photos(n) put its index in the fourth byte. */
export async function photoIndex(body: unknown): Promise<number> {
  const file = (body as FormData).get('file') as File;
  return new Uint8Array(await file.arrayBuffer())[3]!;
}

export const photos = (n: number) =>
  Array.from({ length: n }, (_, i) => new File([new Uint8Array([0xff, 0xd8, 0xff, i])], `p${i}.jpg`, { type: 'image/jpeg' }));

export async function fillForm(n = 4) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Character name'), 'Dana');
  await user.upload(screen.getByLabelText('Photos'), photos(n));
  return user;
}

/** Where 'Generate with this character' leads: shows the navigation state it carried. */
function CreateImageProbe() {
  const location = useLocation();
  return <pre data-testid="nav-state">{JSON.stringify(location.state)}</pre>;
}

/** The training page as the signed-in app shows it, for the user record `me`, over `backend`. */
export function renderTrainingPage(backend: Backend, me: Me) {
  const client = createQueryClient();
  client.setQueryData<Me>(meKey, me);
  render(
    <AppProviders backend={backend} queryClient={client}>
      <MemoryRouter initialEntries={['/app/character-training']}>
        <Routes>
          <Route path="/app/character-training" element={<CharacterTrainingPage />} />
          <Route path="/app/create-image" element={<CreateImageProbe />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
}
