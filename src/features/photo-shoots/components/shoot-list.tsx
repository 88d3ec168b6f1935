import { Link } from 'react-router';
import { SHOOT_TEXTS, type ShootSummary } from '@common/photo-shoots';
import { cn } from '@/lib/cn';

const STATUS_WORDS: Record<ShootSummary['status'], string> = {
  RUNNING: 'Running',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

/** The user's shoots as links to their pages, with progress. */
export function ShootList({ shoots }: { shoots: ShootSummary[] }) {
  return (
    <ul className="flex flex-col divide-y divide-border rounded-lg border border-border bg-bg">
      {shoots.map((s) => (
        <li key={s.id}>
          <Link to={`/app/photo-shoots/${s.id}`} className="flex items-center justify-between gap-3 px-4 py-3 text-sm hover:bg-bg-muted">
            <span className="min-w-0 truncate">
              <span className="font-medium">{s.pack_name}</span> <span className="text-fg-muted">· {s.character_name}</span>
            </span>
            <span className="flex shrink-0 items-center gap-3 text-fg-muted">
              <span>{SHOOT_TEXTS.ready(s.ready, s.photo_count)}</span>
              <span
                className={cn(
                  'rounded-full px-2 py-0.5 text-xs font-medium',
                  s.status === 'RUNNING' ? 'bg-brand-soft text-brand' : 'bg-bg-muted',
                )}
              >
                {STATUS_WORDS[s.status]}
              </span>
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
