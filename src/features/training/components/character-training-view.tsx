import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import type { CreateImageNavigationState } from '@common/create-image-state';
import { CREDIT_COSTS } from '@common/product';
import type { TrainingView } from '@common/training';
import { Banner } from '@/components/ui/banner';
import { buttonClasses } from '@/components/ui/button';
import { useChanges } from '@/session/use-realtime';
import { useIsPhone } from '@/lib/use-is-phone';
import { trainingsKey, useCharacterActions, useTrainings } from '../api';
import { useDeleteCharacter } from '../hooks/use-delete-character';
import { usePhotoChecks } from '../hooks/use-photo-checks';
import { useTrainingForm } from '../hooks/use-training-form';
import { useTrainingSubmit } from '../hooks/use-training-submit';
import { PreviousTrainings } from './previous-trainings';
import { ProblemPhotosDialog } from './problem-photos-dialog';
import { TrainingForm } from './training-form';

const COST = CREDIT_COSTS.training;
export const SUCCESS_DESKTOP =
  'Training submitted successfully! It will take 5-10 minutes to complete. You can check the progress in the Previous Trainings panel.';
export const SUCCESS_PHONE = 'Training submitted successfully! Check progress below.';

/** /app/character-training: form, banners and Previous Trainings, in a desktop and a phone layout. */
export function CharacterTrainingView({ credits, email }: { credits: number; email: string | null }) {
  const isPhone = useIsPhone();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const trainings = useTrainings();
  const characterActions = useCharacterActions();
  const deleteCharacter = useDeleteCharacter();
  const formApi = useTrainingForm(email);
  const checks = usePhotoChecks(formApi.form.photos);
  const flow = useTrainingSubmit({
    formApi,
    credits,
    trainings: trainings.data,
    photoRefusal: checks.refusal,
    problemPhotos: checks.withProblems,
  });
  const [creditsNoticeDismissed, setCreditsNoticeDismissed] = useState(false);

  // Any change to the user's trainings reloads the list (product §4).
  useChanges('trainings', () => void qc.invalidateQueries({ queryKey: trainingsKey }));

  const generateWith = (t: TrainingView) => {
    const state: CreateImageNavigationState = {
      selectedCharacter: { id: t.id, character_name: t.character_name, trigger_word: t.trigger_word, lora_file_url: t.lora_file_url! },
    };
    void navigate('/app/create-image', { state });
  };

  const { operation } = flow;
  // On a phone the banners sit right under the button, where the reason a click did nothing already shows.
  const saidBesideButton = isPhone && operation.kind === 'error' && operation.message === flow.validation;
  const statusBanners = ((operation.kind !== 'idle' && !saidBesideButton) || flow.successVisible) && (
    <div className="flex flex-col gap-3" aria-live="polite">
      {flow.successVisible && (
        <Banner tone="green" onDismiss={flow.dismissSuccess}>
          {isPhone ? SUCCESS_PHONE : SUCCESS_DESKTOP}
        </Banner>
      )}
      {operation.kind === 'uploading' && <Banner tone="blue">Uploading your photos…</Banner>}
      {operation.kind === 'training' && <Banner tone="blue">Submitting your training…</Banner>}
      {operation.kind === 'completed' && (
        <Banner tone="green" title="Your character is ready" onDismiss={flow.clearError}>
          The training finished. Use “Generate with this character” to create images with it.
        </Banner>
      )}
      {operation.kind === 'error' && !saidBesideButton && (
        <Banner tone="red" onDismiss={flow.clearError}>
          {operation.message}
        </Banner>
      )}
    </div>
  );

  return (
    <div className="flex flex-col gap-6">
      <header>
        <h1 className="text-2xl font-bold md:text-3xl">Character Training</h1>
        <p className="mt-1 text-sm text-fg-muted">Teach Likeness a person from their photos, then put them in any scene you describe.</p>
      </header>

      {flow.short && !creditsNoticeDismissed && (
        <Banner tone="amber" title="Insufficient credits" onDismiss={() => setCreditsNoticeDismissed(true)}>
          <p>
            You need {COST} credits to train characters. You currently have {credits.toLocaleString('en-US')} credits.
          </p>
          <Link to="/app/subscription" className={buttonClasses('primary', 'sm', 'mt-3')}>
            Need {COST} Credits
          </Link>
        </Banner>
      )}
      {!isPhone && statusBanners}

      <div className="grid grid-cols-1 items-start gap-6 md:grid-cols-[minmax(0,1fr)_320px] lg:grid-cols-[minmax(0,1fr)_380px]">
        <TrainingForm
          formApi={formApi}
          checks={checks}
          busy={flow.busy}
          uploading={operation.kind === 'uploading'}
          validation={flow.validation}
          canSubmit={flow.canSubmit}
          onSubmit={() => void flow.submit()}
        />
        <ProblemPhotosDialog photos={flow.question} onTrainAnyway={flow.trainAnyway} onReview={flow.dismissQuestion} />
        {/* On a phone the submit button is far down the page: its outcome shows right under it, above the list. */}
        {isPhone && statusBanners}
        <div className="md:sticky md:top-8">
          <PreviousTrainings
            items={trainings.data}
            loading={trainings.isPending}
            refreshing={trainings.isFetching}
            onRefresh={() => void trainings.refetch()}
            onGenerate={generateWith}
            onRename={(t, name) => characterActions.rename(t.id, name)}
            onDelete={deleteCharacter}
          />
        </div>
      </div>
    </div>
  );
}
