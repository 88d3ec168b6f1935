import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { MEMBER_STATUSES, type MemberStatus, type TeamMemberView } from '@common/teams';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { ErrorState } from '@/components/ui/states';
import { useToast } from '@/components/ui/toast';
import { downloadFile } from '@/lib/download-file';
import { remind, removeMember, review, STATUS_LABEL, teamArchivePath, teamKey, useTeamMembers } from '../api';

/** The lead's dashboard: every member with their status, filters, Remind, the picks with Approve / Ask for another pick, Download all. */
export function MembersDashboard({ teamId, teamName }: { teamId: string; teamName: string }) {
  const members = useTeamMembers(teamId, true);
  const { api } = useBackend();
  const qc = useQueryClient();
  const toast = useToast();
  const [filter, setFilter] = useState<MemberStatus | 'all'>('all');
  const [busy, setBusy] = useState<string | null>(null);

  const act = async (key: string, run: () => Promise<string | void>) => {
    setBusy(key);
    try {
      const done = await run();
      if (done) toast.show(done);
      await qc.invalidateQueries({ queryKey: teamKey(teamId) });
    } catch (err) {
      toast.show(errorMessage(err), { tone: 'error' });
    } finally {
      setBusy(null);
    }
  };

  if (members.isPending) return <Spinner className="size-6 text-brand" label="Loading members" />;
  if (members.isError) return <ErrorState title="Could not load the members." onRetry={() => void members.refetch()} />;
  const counts = new Map<MemberStatus, number>();
  for (const m of members.data) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  const shown = filter === 'all' ? members.data : members.data.filter((m) => m.status === filter);

  return (
    <section className="flex flex-col gap-3" aria-label="Members">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="mr-auto text-lg font-semibold text-fg">Members ({members.data.length})</h2>
        <Button
          variant="outline"
          busy={busy === 'remind'}
          onClick={() =>
            void act('remind', async () => {
              const { reminded } = await remind(api, teamId);
              return reminded
                ? `Reminded ${reminded} ${reminded === 1 ? 'person' : 'people'}.`
                : 'Everyone not done was reminded in the last 24 hours.';
            })
          }
        >
          Remind
        </Button>
        <Button
          variant="outline"
          busy={busy === 'zip'}
          onClick={() => void act('zip', () => downloadFile(api, teamArchivePath(teamId), `${teamName}-headshots.zip`))}
        >
          Download all
        </Button>
      </div>
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Filter by status">
        {(['all', ...MEMBER_STATUSES] as const).map((s) => (
          <button
            key={s}
            type="button"
            aria-pressed={filter === s}
            onClick={() => setFilter(s)}
            className="rounded-full border border-border px-3 py-1 text-xs text-fg-muted aria-pressed:border-brand aria-pressed:bg-brand aria-pressed:text-brand-fg"
          >
            {s === 'all' ? `All ${members.data.length}` : `${STATUS_LABEL[s]} ${counts.get(s) ?? 0}`}
          </button>
        ))}
      </div>
      <ul className="divide-y divide-border rounded-lg border border-border">
        {shown.map((m) => (
          <MemberRow key={m.user_id} m={m} busy={busy} act={act} teamId={teamId} />
        ))}
        {shown.length === 0 && <li className="p-4 text-sm text-fg-muted">Nobody with this status.</li>}
      </ul>
    </section>
  );
}

function MemberRow({
  m,
  busy,
  act,
  teamId,
}: {
  m: TeamMemberView;
  busy: string | null;
  act: (key: string, run: () => Promise<string | void>) => Promise<void>;
  teamId: string;
}) {
  const { api } = useBackend();
  const label = m.name || m.email || 'Member';
  return (
    <li className="flex flex-col gap-3 p-3 sm:flex-row sm:items-center">
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium text-fg">{label}</p>
        <p className="truncate text-xs text-fg-muted">
          {[m.title, m.email, m.role !== 'member' ? m.role : null].filter(Boolean).join(' · ')}
        </p>
      </div>
      <span className="w-fit rounded-full bg-bg-muted px-2.5 py-0.5 text-xs font-medium text-fg" data-status={m.status}>
        {STATUS_LABEL[m.status]}
      </span>
      {m.submission_urls.length > 0 && (
        <div className="flex gap-1.5">
          {m.submission_urls.map((url) => (
            <img key={url} src={api.mediaUrl(url)} alt={`${label}'s pick`} className="size-14 rounded object-cover" />
          ))}
        </div>
      )}
      <div className="flex flex-wrap gap-1.5">
        {m.status === 'submitted' && (
          <>
            <Button
              size="sm"
              busy={busy === `a:${m.user_id}`}
              onClick={() => void act(`a:${m.user_id}`, () => review(api, teamId, m.user_id, 'approve').then(() => `${label} approved.`))}
            >
              Approve
            </Button>
            <Button
              size="sm"
              variant="outline"
              busy={busy === `k:${m.user_id}`}
              onClick={() =>
                void act(`k:${m.user_id}`, () =>
                  review(api, teamId, m.user_id, 'ask-again').then(() => `${label} was asked for another pick.`),
                )
              }
            >
              Ask for another pick
            </Button>
          </>
        )}
        {m.role !== 'owner' && m.status !== 'invited' && (
          <Button
            size="sm"
            variant="ghost"
            busy={busy === `r:${m.user_id}`}
            onClick={() => {
              if (!window.confirm(`Remove ${label} from the team? Their team photos are erased; their personal account stays.`)) return;
              void act(`r:${m.user_id}`, () =>
                removeMember(api, teamId, m.user_id).then(
                  (r) => `${label} removed.${r.refunded ? ` ${r.refunded} credits back to the team.` : ''}`,
                ),
              );
            }}
          >
            Remove
          </Button>
        )}
      </div>
    </li>
  );
}
