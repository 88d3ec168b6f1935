import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { ApiError, errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { acceptInvite, inviteWelcome } from '../api';

/**
 * The team welcome page an invite link opens (signed out too): the team, its due date and look, what to upload.
 * Joining needs an account: signed out, it goes through /app/teams/join/<token>, which signs in or up first
 * and comes back to accept.
 */
export function JoinTeam({ token }: { token: string }) {
  const { api } = useBackend();
  const navigate = useNavigate();
  const welcome = useQuery({ queryKey: ['team-invite', token], queryFn: () => inviteWelcome(api, token), retry: false });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      const { team_id } = await acceptInvite(api, token);
      navigate(`/app/teams/${team_id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) navigate(`/app/teams/join/${encodeURIComponent(token)}`);
      else setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  if (welcome.isPending) return <Spinner className="size-8 text-brand" label="Loading the invite" />;
  if (welcome.isError) return <p className="text-danger">{errorMessage(welcome.error)}</p>;
  const w = welcome.data;
  return (
    <Card className="mx-auto flex w-full max-w-lg flex-col gap-4 p-6">
      {w.ok ? (
        <>
          <h1 className="text-2xl font-semibold text-fg">Join {w.team}</h1>
          <p className="text-sm text-fg-muted">
            {w.team} is collecting everyone’s headshot in one look{w.look.pack_name ? ` (${w.look.pack_name})` : ''}
            {w.due_date ? `, by ${w.due_date}` : ''}. The team pays for your training and your photo shoot.
          </p>
          <div className="rounded-md bg-bg-subtle p-3 text-sm text-fg">
            <p className="font-medium">What to upload</p>
            <p className="mt-1 text-fg-muted">
              A few recent, clear photos of yourself alone: your face in good light, different angles. No sunglasses, no group photos.
            </p>
          </div>
          {w.domain && <p className="text-sm text-fg-muted">This link is for addresses at {w.domain}.</p>}
          {error && (
            <p role="alert" className="text-sm text-danger">
              {error}
            </p>
          )}
          <Button busy={busy} onClick={() => void join()}>
            Join {w.team}
          </Button>
        </>
      ) : (
        <>
          <h1 className="text-xl font-semibold text-fg">This invite cannot be used</h1>
          <p role="alert" className="text-sm text-fg-muted">
            {w.message}
          </p>
        </>
      )}
    </Card>
  );
}

/** Signed in after following an invite link: accepts it and opens the team. */
export function AcceptInvite({ token }: { token: string }) {
  const { api } = useBackend();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    acceptInvite(api, token)
      .then(({ team_id }) => live && navigate(`/app/teams/${team_id}`, { replace: true }))
      .catch((err: unknown) => live && setError(errorMessage(err)));
    return () => {
      live = false;
    };
  }, [api, navigate, token]);
  return error ? (
    <p role="alert" className="mx-auto max-w-lg text-danger">
      {error}
    </p>
  ) : (
    <Spinner className="size-8 text-brand" label="Joining the team" />
  );
}
