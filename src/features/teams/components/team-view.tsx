import { isLead } from '@common/teams';
import { Spinner } from '@/components/ui/spinner';
import { ErrorState } from '@/components/ui/states';
import { errorMessage } from '@/backend/api-error';
import { useTeam } from '../api';
import { useTeamLive } from '../hooks/use-team-live';
import { InvitePanel } from './invite-panel';
import { LookEditor } from './look-editor';
import { MemberWay } from './member-way';
import { TeamCredits } from './team-credits';
import { MembersDashboard } from './members-dashboard';

/** One team: its balance and due date, the lead's dashboard, invites and look, and the person's own way. */
export function TeamView({ id }: { id: string }) {
  const team = useTeam(id);
  useTeamLive(id);
  if (team.isPending) return <Spinner className="size-6 text-brand" label="Loading the team" />;
  if (team.isError) return <ErrorState title={errorMessage(team.error)} onRetry={() => void team.refetch()} />;
  const t = team.data;
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold text-fg">{t.name}</h1>
        <p className="mt-1 text-sm text-fg-muted first-letter:uppercase">
          {t.role}
          {` · ${t.credits.toLocaleString('en-US')} team credits`}
          {t.due_date && ` · due ${t.due_date}`}
          {t.pack_name && ` · look: ${t.pack_name} (${t.aspect_ratio})`}
        </p>
      </header>
      {t.role === 'owner' && <TeamCredits teamId={t.id} credits={t.credits} />}
      <MemberWay team={t} />
      {isLead(t.role) && (
        <>
          <MembersDashboard teamId={t.id} teamName={t.name} />
          <InvitePanel teamId={t.id} />
        </>
      )}
      {t.role === 'owner' && <LookEditor team={t} />}
    </div>
  );
}
