import { NavLink } from 'react-router';
import { Camera } from 'lucide-react';
import { SHOOT_TEXTS } from '@common/photo-shoots';
import { cn } from '@/lib/cn';
import { useShoots } from '../api';

/**
 * Running shoots with their progress, on every page: in the desktop sidebar (`compact` while it is closed)
 * and as a strip under the phone's top bar.
 */
export function RunningShoots({ variant, open = true }: { variant: 'sidebar' | 'strip'; open?: boolean }) {
  const { data } = useShoots(true);
  if (!data?.length) return null;
  if (variant === 'strip') {
    return (
      <div className="flex flex-col gap-1 border-b border-border bg-brand-soft px-4 py-2 text-xs md:hidden" aria-label="Running shoots">
        {data.map((s) => (
          <NavLink key={s.id} to={`/app/photo-shoots/${s.id}`} className="flex items-center gap-2 text-brand">
            <Camera className="size-3.5 shrink-0" aria-hidden />
            <span className="truncate font-medium">{s.pack_name}</span>
            <span className="ml-auto shrink-0">{SHOOT_TEXTS.ready(s.ready, s.photo_count)}</span>
          </NavLink>
        ))}
      </div>
    );
  }
  return (
    <div className="mb-2 flex flex-col gap-1" aria-label="Running shoots">
      {data.map((s) => (
        <NavLink
          key={s.id}
          to={`/app/photo-shoots/${s.id}`}
          title={`${s.pack_name}: ${SHOOT_TEXTS.ready(s.ready, s.photo_count)}`}
          className="relative flex h-10 items-center gap-3 rounded-md px-[11px] text-xs text-brand hover:bg-brand-soft"
        >
          <Camera className="size-[18px] shrink-0 animate-pulse" aria-hidden />
          <span className={cn('flex min-w-0 flex-col leading-tight transition-opacity duration-200', open ? 'opacity-100' : 'opacity-0')}>
            <span className="truncate font-medium">{s.pack_name}</span>
            <span className="truncate text-fg-muted">{SHOOT_TEXTS.ready(s.ready, s.photo_count)}</span>
          </span>
        </NavLink>
      ))}
    </div>
  );
}
