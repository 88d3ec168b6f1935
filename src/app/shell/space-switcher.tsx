import { useNavigate } from 'react-router';
import { Check, ChevronsUpDown, Settings2, UserRound } from 'lucide-react';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { cn } from '@/lib/cn';
import type { Space } from '@/session/space';

const PERSONAL = 'Personal';

/** The mark of a space: a person for Personal, the team's first letter on the brand colour for a team. */
function SpaceMark({ team, className }: { team: string | null; className?: string }) {
  return (
    <span
      aria-hidden
      className={cn(
        'grid shrink-0 place-items-center rounded-md text-xs font-bold',
        team ? 'bg-brand text-white' : 'bg-bg-muted text-fg-muted',
        className,
      )}
    >
      {team ? team.trim().charAt(0).toUpperCase() || '?' : <UserRound className="size-3.5" />}
    </span>
  );
}

/**
 * The space switcher (issue 49): which space is active — Personal or one of the person's teams — and the way to
 * change it. In the sidebar (`open` tells whether it shows its words) and in a row under the phone's top bar.
 * Shown only to someone in a team: without one there is only the personal space.
 */
export function SpaceSwitcher({
  space,
  variant,
  open = true,
  onOpenChange,
}: {
  space: Space;
  variant: 'sidebar' | 'bar';
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}) {
  const navigate = useNavigate();
  if (space.teams.length === 0 && !space.teamId) return null;
  const name = space.teamId ? (space.team?.name ?? '…') : PERSONAL;
  const items = [{ id: null, name: PERSONAL }, ...space.teams.map((t) => ({ id: t.id as string | null, name: t.name }))].map((s) => ({
    label: s.name,
    icon:
      s.id === space.teamId ? (
        <Check className="size-4 text-brand" aria-hidden />
      ) : (
        <SpaceMark team={s.id && s.name} className="size-4 text-[9px]" />
      ),
    current: s.id === space.teamId,
    onSelect: () => space.switchTo(s.id),
  }));
  const label = `Space: ${name}. Switch space`;
  const trigger =
    variant === 'sidebar' ? (
      <button
        type="button"
        aria-label={label}
        title={open ? undefined : `Space: ${name}`}
        data-testid="space-switcher"
        className="mb-3 flex h-12 w-full items-center gap-3 rounded-md border border-border px-[5px] text-left hover:bg-bg-muted data-[state=open]:bg-bg-muted"
      >
        <SpaceMark team={space.teamId ? name : null} className="size-7" />
        <span className={cn('min-w-0 flex-1 transition-opacity duration-200', open ? 'opacity-100' : 'opacity-0')}>
          <span className="block text-[11px] leading-tight text-fg-muted">Space</span>
          <span className="block truncate text-sm font-semibold leading-tight text-fg">{name}</span>
        </span>
        <ChevronsUpDown className={cn('size-4 shrink-0 text-fg-muted', !open && 'hidden')} aria-hidden />
      </button>
    ) : (
      <button
        type="button"
        aria-label={label}
        data-testid="space-switcher"
        className="flex min-w-0 items-center gap-2 rounded-md px-1.5 py-1 text-sm hover:bg-bg-muted data-[state=open]:bg-bg-muted"
      >
        <SpaceMark team={space.teamId ? name : null} className="size-5 text-[10px]" />
        <span className="text-fg-muted">Space:</span>
        <span className="min-w-0 truncate font-semibold text-fg">{name}</span>
        <ChevronsUpDown className="size-3.5 shrink-0 text-fg-muted" aria-hidden />
      </button>
    );
  return (
    <DropdownMenu
      label="Spaces"
      side={variant === 'sidebar' ? 'right' : 'bottom'}
      align="start"
      onOpenChange={onOpenChange}
      trigger={trigger}
      header={<p className="text-xs font-medium text-fg-muted">Switch space</p>}
      items={[
        ...items,
        { label: 'Manage teams', icon: <Settings2 className="size-4" aria-hidden />, onSelect: () => navigate('/app/teams') },
      ]}
    />
  );
}
