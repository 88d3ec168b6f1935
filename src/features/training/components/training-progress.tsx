import { trainingMsLeft, trainingStageText, type TrainingProgress as Progress } from '@common/training';
import { TimeLeft } from '@/components/time-left';

/**
 * Where a running training is, under its 'Training' pill (issue 54 item 6): the trainer's stage ('Queued, 2
 * ahead', 'Preparing photos', 'Training — step 420 of 1000', 'Saving the model'), a bar of the steps done, and
 * the time left once a step rate has been measured. Nothing before the trainer has said anything.
 */
export function TrainingProgress({ progress }: { progress: Progress | null }) {
  if (!progress) return null;
  const msLeft = trainingMsLeft(progress);
  const share = progress.step !== undefined && progress.total_steps ? Math.min(1, progress.step / progress.total_steps) : null;
  return (
    <div className="flex flex-col gap-1.5" data-testid="training-progress">
      <p className="text-xs text-fg-muted">
        <span className="font-medium text-fg">{trainingStageText(progress)}</span>
        {msLeft !== null && (
          <>
            {' · '}
            <TimeLeft msLeft={msLeft} />
          </>
        )}
      </p>
      {share !== null && (
        <div
          className="h-1.5 w-full overflow-hidden rounded-full bg-bg-muted"
          role="progressbar"
          aria-label="Training progress"
          aria-valuemin={0}
          aria-valuemax={progress.total_steps}
          aria-valuenow={progress.step}
        >
          <div className="h-full rounded-full bg-info transition-[width] duration-500" style={{ width: `${share * 100}%` }} />
        </div>
      )}
    </div>
  );
}
