import { RefreshCw, Sparkles, UserRound } from 'lucide-react';
import type { TrainingView } from '@common/training';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { TRAINING_FAILED } from '../hooks/use-training-submit';
import { CharacterMenu } from './character-menu';
import { TrainingProgress } from './training-progress';

const dateFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

const BADGE: Record<string, string> = {
  COMPLETED: 'bg-success-soft text-success border-success-border',
  FAILED: 'bg-danger-soft text-danger border-danger-border',
};
const LABEL: Record<string, string> = { IN_PROGRESS: 'Training', COMPLETED: 'Completed', FAILED: 'Failed' };

function StatusBadge({ status }: { status: string }) {
  return (
    <span
      className={cn(
        'inline-flex shrink-0 items-center gap-1.5 rounded-full border px-2.5 py-0.5 text-xs font-medium',
        BADGE[status] ?? 'bg-info-soft text-info border-info-border',
      )}
    >
      {status === 'IN_PROGRESS' && (
        <span className="relative flex size-2" aria-hidden>
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-info opacity-60" />
          <span className="relative inline-flex size-2 rounded-full bg-info" />
        </span>
      )}
      {LABEL[status] ?? status}
    </span>
  );
}

export interface PreviousTrainingsProps {
  items: TrainingView[] | undefined;
  loading: boolean;
  refreshing: boolean;
  onRefresh: () => void;
  onGenerate: (training: TrainingView) => void;
  /** 'Rename' and 'Delete' in each character's menu. */
  onRename: (training: TrainingView, name: string) => Promise<void>;
  onDelete: (training: TrainingView) => Promise<void>;
}

/** Previous Trainings (product §2, §4): newest first, live status badges, 'Generate with this character', and each one's menu. */
export function PreviousTrainings({ items, loading, refreshing, onRefresh, onGenerate, onRename, onDelete }: PreviousTrainingsProps) {
  return (
    <Card className="flex flex-col" aria-labelledby="previous-trainings-title">
      <div className="flex items-center justify-between gap-2 border-b border-border px-5 py-4">
        <h2 id="previous-trainings-title" className="text-base font-semibold">
          Previous Trainings
        </h2>
        <Button variant="ghost" size="sm" onClick={onRefresh} disabled={refreshing} aria-label="Refresh trainings">
          <RefreshCw className={cn('size-4', refreshing && 'animate-spin')} aria-hidden />
          Refresh
        </Button>
      </div>
      {loading ? (
        <div className="flex justify-center py-12 text-brand">
          <Spinner />
        </div>
      ) : !items?.length ? (
        <div className="flex flex-col items-center gap-2 px-6 py-12 text-center">
          <UserRound className="size-8 text-fg-subtle" aria-hidden />
          <p className="text-sm font-medium">No trainings yet</p>
          <p className="text-xs text-fg-muted">Your characters appear here once you start a training.</p>
        </div>
      ) : (
        <ul className="divide-y divide-border" aria-label="Trainings">
          {items.map((t) => (
            <li key={t.id} className="flex flex-col gap-2 px-5 py-4" data-testid="training-row">
              <div className="flex items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="truncate font-medium">{t.character_name}</p>
                  <p className="mt-0.5 text-xs text-fg-muted">
                    {dateFormat.format(new Date(t.created_at))}
                    {t.trigger_word && (
                      <>
                        {' · '}
                        <span className="font-mono">{t.trigger_word}</span>
                      </>
                    )}
                  </p>
                </div>
                <div className="flex shrink-0 items-center gap-1">
                  <StatusBadge status={t.status} />
                  <CharacterMenu training={t} onRename={onRename} onDelete={onDelete} />
                </div>
              </div>
              {t.status === 'IN_PROGRESS' && <TrainingProgress progress={t.progress} />}
              {t.status === 'FAILED' && <p className="text-xs text-danger">{t.error || TRAINING_FAILED}</p>}
              {t.status === 'COMPLETED' && t.lora_file_url && (
                <Button variant="outline" size="sm" className="self-start" onClick={() => onGenerate(t)}>
                  <Sparkles className="size-4 text-brand" aria-hidden />
                  Generate with this character
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
