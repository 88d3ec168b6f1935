import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Users } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { createTeam, teamsKey, useTeams } from '../api';
import { useTeamLive } from '../hooks/use-team-live';

/** Your spaces: the teams you belong to, and a new team. */
export function TeamsHome() {
  const teams = useTeams();
  useTeamLive();
  const { api } = useBackend();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const team = await createTeam(api, name.trim());
      await qc.invalidateQueries({ queryKey: teamsKey });
      navigate(`/app/teams/${team.id}`);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-6">
      <header>
        <h1 className="text-2xl font-semibold text-fg">Teams</h1>
        <p className="mt-1 text-sm text-fg-muted">
          Headshots for a whole team, in one look, collected in one place. Your personal space stays yours.
        </p>
      </header>
      {teams.isPending ? (
        <Spinner className="size-6 text-brand" label="Loading teams" />
      ) : teams.isError ? (
        <ErrorState title="Could not load your teams." onRetry={() => void teams.refetch()} />
      ) : teams.data.length === 0 ? (
        <EmptyState
          icon={<Users className="size-8" />}
          title="You are not in a team yet"
          description="Create one, or open the invite link your team lead sent you."
        />
      ) : (
        <ul className="grid gap-3 sm:grid-cols-2">
          {teams.data.map((team) => (
            <li key={team.id}>
              <Link to={`/app/teams/${team.id}`} className="block rounded-lg border border-border bg-bg p-4 hover:bg-bg-subtle">
                <p className="font-semibold text-fg">{team.name}</p>
                <p className="mt-1 text-sm text-fg-muted first-letter:uppercase">
                  {team.role}
                  {` · ${team.credits.toLocaleString('en-US')} team credits`}
                  {team.due_date && ` · due ${team.due_date}`}
                </p>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <Card className="p-4">
        <form onSubmit={(e) => void submit(e)} className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <div className="flex-1">
            <Input
              label="New team"
              placeholder="Acme Inc."
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={80}
              error={error}
            />
          </div>
          <Button type="submit" busy={busy} disabled={!name.trim()}>
            Create team
          </Button>
        </form>
      </Card>
    </div>
  );
}
