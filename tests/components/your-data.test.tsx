// @vitest-environment jsdom
import { act, cleanup, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCOUNT_TEXTS } from '@common/account';
import { toGenerationView, type GenerationRecord } from '@common/generation';
import { MAX_SELECTION, pageCountOf, SELECTION_TOO_LARGE } from '@common/library';
import { CHARACTER_CANCELLED_NOT_RESTORABLE, CHARACTER_DELETED, type TrainingView } from '@common/training';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import type { Backend, Me } from '@/backend/port';
import { LibraryGallery } from '@/features/gallery/components/library-gallery';
import { ProfileScreen } from '@/features/profile/components/profile-screen';
import { useSelection } from '@/features/gallery/hooks/use-selection';
import { fakeBackend, me } from '../support/fake-backend';
import { record, renderTrainingPage } from '../support/training-page';

const QUESTION = 'Delete Dana? Its model and training photos are removed for good. Images you made with it stay in your gallery.';

beforeAll(() => {
  // Radix menus measure and capture the pointer; jsdom has neither.
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:x');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Previous Trainings: a character’s menu', () => {
  function renderTrainings(
    handlers: { del?: () => unknown; patch?: (body: unknown) => unknown; restore?: () => unknown } = {},
    dana: Partial<TrainingView> = { status: 'COMPLETED', lora_file_url: '/media/loras/u/t1.json' },
  ) {
    const older = record({ id: 't0', character_name: 'Ola', status: 'COMPLETED', lora_file_url: '/media/loras/u/t0.json' });
    const original = record({ id: 't1', character_name: 'Dana', ...dana });
    let trainings: TrainingView[] = [original];
    const fake = fakeBackend({
      routes: {
        '/api/trainings': () => ({ items: trainings }),
        '/api/trainings/t1/restore': async () => {
          await handlers.restore?.();
          trainings = [original, older];
          return original;
        },
        '/api/trainings/t1': async (body, method) => {
          if (method === 'DELETE') {
            await handlers.del?.();
            trainings = handlers.restore ? [older] : [];
            return undefined;
          }
          const renamed = (await handlers.patch?.(body)) ?? {
            ...trainings[0],
            character_name: (body as { character_name: string }).character_name,
          };
          trainings = [renamed as TrainingView];
          return renamed;
        },
        '/api/characters': () => ({ items: [] }),
      },
    });
    renderTrainingPage(fake.backend, me({ credits: 1000 }));
    return fake;
  }
  const calls = (fake: ReturnType<typeof fakeBackend>, method: string) =>
    fake.request.mock.calls.filter(([path, o]) => path === '/api/trainings/t1' && (o as { method?: string })?.method === method);

  it('offers Rename and Delete; Delete asks the issue’s question, Cancel keeps the character, Delete removes it once', async () => {
    let release!: () => void;
    const fake = renderTrainings({ del: () => new Promise<void>((resolve) => (release = resolve)) });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for Dana' }));
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((i) => i.textContent),
    ).toEqual(['Rename', 'Delete']);
    await user.click(within(menu).getByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('delete-character-question')).toHaveTextContent(QUESTION);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls(fake, 'DELETE')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Actions for Dana' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const confirm = within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' });
    await user.click(confirm);
    // A double click while the first delete runs sends nothing more.
    await user.click(confirm).catch(() => undefined);
    release();
    await waitFor(() => expect(screen.queryByTestId('training-row')).not.toBeInTheDocument());
    expect(calls(fake, 'DELETE')).toHaveLength(1);
    expect(screen.getByText('No trainings yet')).toBeInTheDocument();
  });

  async function deleteDana(user: ReturnType<typeof userEvent.setup>) {
    await user.click(await screen.findByRole('button', { name: 'Actions for Dana' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
  }
  const rows = () => screen.queryAllByTestId('training-row').map((r) => within(r).getByText(/^(Dana|Ola)$/).textContent);

  it("after Delete, the toast 'Character deleted' offers Undo, which brings the character back where it was", async () => {
    const fake = renderTrainings({ restore: () => undefined });
    const user = userEvent.setup();
    await deleteDana(user);
    await waitFor(() => expect(rows()).toEqual(['Ola']));
    const undo = await screen.findByRole('button', { name: 'Undo', description: CHARACTER_DELETED });
    await user.click(undo);
    await waitFor(() => expect(rows()).toEqual(['Dana', 'Ola']));
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
    expect(fake.request.mock.calls.filter(([path]) => path === '/api/trainings/t1/restore')).toEqual([
      ['/api/trainings/t1/restore', { method: 'POST' }],
    ]);
  });

  it('a training that was still running was cancelled and refunded: its toast has no Undo', async () => {
    renderTrainings({ restore: () => undefined }, { status: 'IN_PROGRESS' });
    const user = userEvent.setup();
    await deleteDana(user);
    expect(await screen.findByText(CHARACTER_DELETED)).toBeInTheDocument();
    await waitFor(() => expect(rows()).toEqual(['Ola']));
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
  });

  it('an Undo the server refuses shows its reason and the character stays deleted', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    renderTrainings({ restore: () => Promise.reject(new ApiError(410, '{}', CHARACTER_CANCELLED_NOT_RESTORABLE)) });
    const user = userEvent.setup();
    await deleteDana(user);
    await user.click(await screen.findByRole('button', { name: 'Undo' }));
    expect(await screen.findByText(CHARACTER_CANCELLED_NOT_RESTORABLE)).toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Undo of a character delete failed', expect.objectContaining({ status: 410 }));
    expect(rows()).toEqual(['Ola']);
  });

  it('shows why a delete failed and keeps the character', async () => {
    renderTrainings({ del: () => Promise.reject(new ApiError(503, '{}', 'The server is restarting. Please try again.')) });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for Dana' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The server is restarting. Please try again.');
    expect(screen.getByTestId('training-row')).toHaveTextContent('Dana');
  });

  it('renames: an empty name is refused before sending, a new one is saved and shown', async () => {
    const fake = renderTrainings();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for Dana' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const field = await screen.findByLabelText('Character name', { selector: '[role="dialog"] input' });
    expect(field).toHaveValue('Dana');
    expect(field).toHaveAttribute('maxLength', '80');
    await user.clear(field);
    await user.type(field, '   ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please enter a character name')).toBeInTheDocument();
    expect(calls(fake, 'PATCH')).toHaveLength(0);
    await user.clear(field);
    await user.type(field, 'Dana at work');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByTestId('training-row')).toHaveTextContent('Dana at work'));
    expect(calls(fake, 'PATCH')[0][1]).toMatchObject({ body: { character_name: 'Dana at work' } });
  });
});

describe('profile: Your Data', () => {
  function renderProfile(props: {
    onDeleteAccount?: (email: string, password: string) => Promise<void>;
    onDownloadData?: () => Promise<void>;
    onOpenAccountDeletion?: () => void;
  }) {
    const onDeleteAccount = vi.fn(props.onDeleteAccount ?? (async () => {}));
    const onDownloadData = vi.fn(props.onDownloadData ?? (async () => {}));
    render(
      <MemoryRouter>
        <ProfileScreen
          fullName="Jamie Rivera"
          email="jamie@example.com"
          imageUrl={null}
          joinedAt="2026-03-14T10:00:00.000Z"
          credits={10}
          subscriptionStatus={null}
          subscriptionPlan={null}
          currentPeriodEnd={null}
          onSignOut={() => {}}
          data={{ onDeleteAccount, onDownloadData, onOpenAccountDeletion: props.onOpenAccountDeletion }}
        />
      </MemoryRouter>,
    );
    return { onDeleteAccount, onDownloadData };
  }

  it('deletes the account only after the e-mail is typed right and a password given, and shows the server’s refusal', async () => {
    const { onDeleteAccount } = renderProfile({
      onDeleteAccount: async () => {
        throw new ApiError(502, '{}', ACCOUNT_TEXTS.subscriptionNotCancelled, 'subscription_not_cancelled');
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const dialog = await screen.findByRole('dialog');
    const field = within(dialog).getByLabelText(ACCOUNT_TEXTS.deletePrompt);
    const password = within(dialog).getByLabelText(ACCOUNT_TEXTS.deletePasswordPrompt);
    const submit = within(dialog).getByRole('button', { name: 'Delete my account' });
    expect(submit).toBeDisabled();
    await user.type(field, 'jamie@example.org');
    // The e-mail alone does not do.
    expect(submit).toBeDisabled();
    await user.type(password, 'my-own-password-1');
    await user.click(submit);
    expect(await within(dialog).findByText(ACCOUNT_TEXTS.emailMismatch)).toBeInTheDocument();
    expect(onDeleteAccount).not.toHaveBeenCalled();
    await user.clear(field);
    await user.type(field, ' Jamie@Example.com ');
    await user.click(submit);
    expect(await within(dialog).findByText(ACCOUNT_TEXTS.subscriptionNotCancelled)).toBeInTheDocument();
    expect(onDeleteAccount).toHaveBeenCalledExactlyOnceWith('Jamie@Example.com', 'my-own-password-1');
  });

  it('says a wrong password under the password field', async () => {
    renderProfile({
      onDeleteAccount: async () => {
        throw new ApiError(400, '{}', ACCOUNT_TEXTS.wrongPassword, 'wrong_password');
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText(ACCOUNT_TEXTS.deletePrompt), 'jamie@example.com');
    const password = within(dialog).getByLabelText(ACCOUNT_TEXTS.deletePasswordPrompt);
    await user.type(password, 'not-my-password');
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }));
    expect(await within(dialog).findByText(ACCOUNT_TEXTS.wrongPassword)).toBeInTheDocument();
    expect(password).toHaveAccessibleDescription(expect.stringContaining(ACCOUNT_TEXTS.wrongPassword));
  });

  it('opens the identity provider’s own deletion in the hosted build', async () => {
    const open = vi.fn();
    renderProfile({ onOpenAccountDeletion: open });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Delete account' }));
    expect(open).toHaveBeenCalledOnce();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('downloads my data and shows the once-per-10-minutes refusal', async () => {
    let fail = false;
    const { onDownloadData } = renderProfile({
      onDownloadData: async () => {
        if (fail) throw new ApiError(429, '{}', 'You can download your data once every 10 minutes. Please try again later.');
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Download my data' }));
    expect(onDownloadData).toHaveBeenCalledOnce();
    fail = true;
    await user.click(screen.getByRole('button', { name: 'Download my data' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('You can download your data once every 10 minutes. Please try again later.');
  });
});

describe('My Generations: Select mode', () => {
  const gen = (i: number): GenerationRecord => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    prompt: `prompt number ${i}`,
    style: null,
    width: 512,
    height: 512,
    output_format: 'jpeg',
    image_url: `/media/generations/u/${i}.jpeg`,
    lora_scale: null,
    seed: '1',
    num_inference_steps: 28,
    guidance_scale: 3.5,
    is_favorite: false,
    created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, 300 - i)).toISOString(),
    lora_trainings: null,
  });

  function renderGallery(count: number) {
    let items = Array.from({ length: count }, (_, i) => gen(i + 1));
    const fake = fakeBackend({
      routes: {
        '/api/library/generations': () => {
          const page = items.slice(0, 40).map(toGenerationView);
          return { items: page, page: 1, pageSize: 40, total: items.length, pageCount: pageCountOf(items.length) };
        },
        '/api/library/selection': (body) => {
          const { action, ids } = body as { action: string; ids: string[] };
          if (action === 'delete') items = items.filter((g) => !ids.includes(g.id));
          else items = items.map((g) => (ids.includes(g.id) ? { ...g, is_favorite: true } : g));
          return { changed: ids.length };
        },
        '/api/library/selection.zip': () => 'zip',
      },
    });
    const client = createQueryClient();
    client.setQueryData<Me>(['me'], me());
    render(
      <AppProviders backend={fake.backend as Backend} queryClient={client}>
        <MemoryRouter>
          <LibraryGallery kind="generations" />
        </MemoryRouter>
      </AppProviders>,
    );
    return fake;
  }

  it('selects cards with checkboxes, then favourites, downloads and deletes exactly those', async () => {
    const fake = renderGallery(5);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Select' }));
    const boxes = await screen.findAllByRole('checkbox', { name: /Select image/ });
    expect(boxes).toHaveLength(5);
    for (const box of boxes.slice(0, 3)) await user.click(box);
    await user.click(boxes[2]);
    await user.click(boxes[2]);
    expect(screen.getByTestId('selection-count')).toHaveTextContent(`3 selected (up to ${MAX_SELECTION})`);
    expect(boxes.slice(0, 3).every((b) => b.getAttribute('aria-checked') === 'true')).toBe(true);
    const ids = [1, 2, 3].map((i) => gen(i).id);

    await user.click(screen.getByRole('button', { name: /Add to favorites/ }));
    expect(await screen.findByText('3 images added to favorites.')).toBeInTheDocument();
    expect(fake.request).toHaveBeenCalledWith('/api/library/selection', { method: 'POST', body: { action: 'favorite', ids } });

    await user.click(screen.getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(fake.request).toHaveBeenCalledWith(`/api/library/selection.zip?ids=${ids.join(',')}`));

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete 3 images? They are removed from My Generations and Favorites.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('3 images deleted')).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('checkbox', { name: /Select image/ })).toHaveLength(2));
    expect(screen.getByTestId('selection-count')).toHaveTextContent('0 selected');
    expect(screen.getByRole('button', { name: 'Download' })).toBeDisabled();

    await user.click(screen.getAllByRole('button', { name: 'Done' })[0]);
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /Open image details/ })).toHaveLength(2);
  });

  it('stops at 200 selected', () => {
    const { result } = renderHook(() => useSelection());
    act(() => result.current.start());
    for (let i = 0; i < MAX_SELECTION; i++) act(() => void result.current.toggle(`id-${i}`));
    expect(result.current.ids).toHaveLength(200);
    let added = true;
    act(() => void (added = result.current.toggle('one-more')));
    expect(added).toBe(false);
    expect(result.current.ids).toHaveLength(200);
    act(() => void result.current.toggle('id-0'));
    expect(result.current.ids).toHaveLength(199);
    expect(SELECTION_TOO_LARGE).toBe('Select at most 200 images at once.');
  });
});
