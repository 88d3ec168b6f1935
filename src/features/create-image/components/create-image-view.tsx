import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { CreateImageNavigationState } from '@common/create-image-state';
import type { GenerateImageResponse, GenerationCharacter, GenerationRequestInput, GenerationView } from '@common/generation';
import type { EditRequestInput } from '@common/finishing';
import { CREDIT_COSTS } from '@common/product';
import { ApiError, serverMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Banner } from '@/components/ui/banner';
import { TopUpActions } from '@/components/top-up-actions';
import { useCharacters } from '@/queries/characters';
import { generateImage, usePrependRecent, useRecentGenerations } from '../api';
import { useGenerationForm, isPromptBlank, toFormRequest } from '../hooks/use-generation-form';
import { useGenerationQueue } from '../hooks/use-generation-queue';
import { GenerationForm } from './generation-form';
import { RecentGenerations } from './recent-generations';
import { ResultPanel } from './result-panel';

const COST = CREDIT_COSTS.generation;
/**
 * Generate stays disabled this long after each click: long enough to swallow an accidental double-click
 * (which would queue and charge a second image), short enough to queue more on purpose.
 */
export const SUBMIT_LOCK_MS = 600;

/** Said when the server failed without words of its own: every failure after the debit is refunded. */
export const GENERATION_FAILED = `The image could not be created. Your ${COST} credits are back.`;

/**
 * The spec says a failed generation shows no message. The server's refusals (no credits, NSFW, a bad field,
 * a refunded failure) are worth a sentence, though, shown in place of the image that failed: without it a
 * click just seems to do nothing.
 */
export function failureNote(err: unknown): string {
  if (err instanceof ApiError) return serverMessage(err) ?? (err.status >= 500 ? GENERATION_FAILED : err.message);
  return 'Could not reach the server. Please check your connection and try again.';
}

/**
 * 'Need N Credits' when the balance cannot pay for one more image after those already waiting in the queue
 * (the running one has been paid for); null when it can.
 */
export function creditsShortLabel(credits: number, waiting: number): string | null {
  if (credits < COST) return `Need ${COST} Credits`;
  const needed = COST * (waiting + 1);
  return credits < needed ? `Need ${needed} Credits` : null;
}

export function CreateImageView({
  credits,
  navigationState,
  resultActions,
}: {
  credits: number;
  navigationState: CreateImageNavigationState | null;
  /** The viewer's actions under the result (Upscale, Edit, Keep the seed, Favourite, likeness); `show` puts another image there. */
  resultActions?: (generation: GenerationView, show: (generation: GenerationView) => void) => ReactNode;
}) {
  const { api } = useBackend();
  const formApi = useGenerationForm(navigationState);
  const { form, selectCharacter } = formApi;
  const characters = useCharacters();
  const recent = useRecentGenerations();
  const prependRecent = usePrependRecent();
  const [result, setResult] = useState<GenerationView | null>(null);
  /** The failed request's sentence and prompt: shown where its image would have been. */
  const [error, setError] = useState<{ message: string; prompt: string } | null>(null);
  const [pendingSize, setPendingSize] = useState<{ width: number; height: number } | null>(null);
  const [bannerDismissed, setBannerDismissed] = useState(false);
  const resultRef = useRef<HTMLDivElement>(null);
  const [submitLocked, setSubmitLocked] = useState(false);
  useEffect(() => {
    if (!submitLocked) return;
    const timer = setTimeout(() => setSubmitLocked(false), SUBMIT_LOCK_MS);
    return () => clearTimeout(timer);
  }, [submitLocked]);

  const queue = useGenerationQueue<GenerationRequestInput | EditRequestInput, GenerateImageResponse>({
    run: (request) => {
      setPendingSize(request.image_size);
      return generateImage(api, request);
    },
    onSuccess: ({ generation }) => {
      setError(null);
      setResult(generation);
      prependRecent(generation);
    },
    onError: (err, request) => {
      setResult(null);
      setError({ message: failureNote(err), prompt: request.prompt });
    },
  });

  // The picker lists the caller's completed trainings, plus the one a training page sent us here with.
  const navCharacter = navigationState?.selectedCharacter;
  const characterOptions = useMemo<GenerationCharacter[]>(() => {
    const list: GenerationCharacter[] = characters.data ?? [];
    if (navCharacter?.lora_file_url && !list.some((c) => c.lora_file_url === navCharacter.lora_file_url)) return [navCharacter, ...list];
    return list;
  }, [characters.data, navCharacter]);

  // A remix of an image made with a character that is no longer usable starts without it.
  useEffect(() => {
    if (characters.data && form.loraPath && !characterOptions.some((c) => c.lora_file_url === form.loraPath)) selectCharacter(null);
  }, [characters.data, characterOptions, form.loraPath, selectCharacter]);

  // The 'character ready' e-mail links here with ?character=<training id>: that character, chosen once.
  const [searchParams] = useSearchParams();
  const linkedCharacter = searchParams.get('character');
  const linkedApplied = useRef(false);
  useEffect(() => {
    if (linkedApplied.current || !linkedCharacter || !characters.data) return;
    linkedApplied.current = true;
    const found = characters.data.find((c) => c.id === linkedCharacter);
    if (found && !form.loraPath) selectCharacter(found.lora_file_url);
  }, [linkedCharacter, characters.data, form.loraPath, selectCharacter]);

  const showResult = useCallback((g: GenerationView) => {
    setResult(g);
    setError(null);
  }, []);

  const shortLabel = creditsShortLabel(credits, queue.waiting);
  const canGenerate = !isPromptBlank(form.prompt) && shortLabel === null && !submitLocked;

  const { enqueue } = queue;
  const generate = useCallback(() => {
    if (!canGenerate) return;
    setError(null);
    setSubmitLocked(true);
    enqueue(toFormRequest(form));
    // On a phone the result sits below the long form: bring it into view.
    if (window.matchMedia?.('(max-width: 767px)').matches) resultRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }, [canGenerate, enqueue, form]);

  return (
    <div className="flex flex-col gap-6">
      <header>
        <h1 className="text-2xl font-bold md:text-3xl">Create Image</h1>
        <p className="mt-1 text-sm text-fg-muted">Write a prompt, pick a character if you like, and generate.</p>
      </header>

      {credits < COST && !bannerDismissed && (
        <Banner tone="amber" title="Insufficient Credits" onDismiss={() => setBannerDismissed(true)}>
          <p>
            Each image uses {COST} credits and you have {credits.toLocaleString('en-US')}.
          </p>
          <TopUpActions />
        </Banner>
      )}

      <div className="grid grid-cols-1 items-start gap-6 md:grid-cols-[minmax(300px,360px)_minmax(0,1fr)] lg:grid-cols-[minmax(320px,370px)_minmax(0,1fr)_250px]">
        <GenerationForm
          formApi={formApi}
          characters={characterOptions}
          charactersLoading={characters.isPending}
          creditsShortLabel={shortLabel}
          canGenerate={canGenerate}
          busy={queue.loading}
          onGenerate={generate}
        />
        <div ref={resultRef} className="scroll-mt-20 md:sticky md:top-8">
          <ResultPanel
            result={result}
            loading={queue.loading}
            waiting={queue.waiting}
            pendingSize={pendingSize}
            error={error}
            actions={resultActions && ((g) => resultActions(g, showResult))}
          />
        </div>
        <div className="md:col-span-2 lg:sticky lg:top-8 lg:col-span-1">
          <RecentGenerations
            items={recent.data}
            isError={recent.isError}
            onRetry={() => void recent.refetch()}
            onOpen={showResult}
            activeId={queue.loading ? null : (result?.id ?? null)}
          />
        </div>
      </div>
    </div>
  );
}
