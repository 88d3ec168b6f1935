import { useState } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { SUBMISSION_MAX, type TeamView } from '@common/teams';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button, buttonClasses } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { cn } from '@/lib/cn';
import { useSpace } from '@/session/space';
import { startTeamShoot, STATUS_LABEL, submitPicks, teamKey, useMyTeamWork } from '../api';

/** A member's way: photos and training (the team pays), the team shoot in the team look, pick up to 3, Submit to team. */
export function MemberWay({ team }: { team: TeamView }) {
  const work = useMyTeamWork(team.id);
  const { api } = useBackend();
  const qc = useQueryClient();
  const toast = useToast();
  const [picked, setPicked] = useState<string[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Team work is done in the team's space (issue 49): training there is paid by the team.
  const { switchTo } = useSpace();

  if (work.isPending) return <Spinner className="size-6 text-brand" label="Loading your team work" />;
  if (work.isError) return <p className="text-sm text-danger">{errorMessage(work.error)}</p>;
  const w = work.data;
  const ready = w.characters.find((c) => c.status === 'COMPLETED');
  const picks = picked ?? w.submission;
  const locked = w.status === 'approved';

  const run = async (key: string, fn: () => Promise<void>) => {
    setBusy(key);
    setError(null);
    try {
      await fn();
      await qc.invalidateQueries({ queryKey: teamKey(team.id) });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };
  const toggle = (id: string) =>
    setPicked(picks.includes(id) ? picks.filter((p) => p !== id) : picks.length < SUBMISSION_MAX ? [...picks, id] : picks);

  return (
    <section className="flex flex-col gap-4" aria-label="Your team headshot">
      <div className="flex items-center gap-2">
        <h2 className="text-lg font-semibold text-fg">Your team headshot</h2>
        <span className="rounded-full bg-bg-muted px-2.5 py-0.5 text-xs font-medium">{STATUS_LABEL[w.status]}</span>
      </div>
      <ol className="flex flex-col gap-4 text-sm">
        <li className="rounded-lg border border-border p-4">
          <p className="font-medium text-fg">1. Your photos and training</p>
          <p className="mt-1 text-fg-muted">Upload a few clear photos of yourself. The team pays for the training.</p>
          {w.characters.length > 0 && (
            <p className="mt-2 text-fg">
              {w.characters.map((c) => `${c.name}: ${c.status === 'IN_PROGRESS' ? 'training' : c.status.toLowerCase()}`).join(' · ')}
            </p>
          )}
          {!ready && (
            <Link className={cn(buttonClasses('outline', 'sm'), 'mt-3')} to="/app/character-training" onClick={() => switchTo(team.id)}>
              Upload photos
            </Link>
          )}
        </li>
        <li className="rounded-lg border border-border p-4">
          <p className="font-medium text-fg">2. Your team photo shoot</p>
          <p className="mt-1 text-fg-muted">
            In the team look{team.pack_name ? ` (${team.pack_name}, ${team.aspect_ratio})` : ''}. The team pays.
          </p>
          {w.running_shoot_id ? (
            <Link className={cn(buttonClasses('outline', 'sm'), 'mt-3')} to={`/app/photo-shoots/${w.running_shoot_id}`}>
              See the shoot
            </Link>
          ) : (
            <Button
              size="sm"
              className="mt-3"
              disabled={!ready || !team.pack_name}
              busy={busy === 'shoot'}
              onClick={() => void run('shoot', async () => void (await startTeamShoot(api, team.id, ready!.id, crypto.randomUUID())))}
            >
              Start the team shoot
            </Button>
          )}
        </li>
        <li className="rounded-lg border border-border p-4">
          <p className="font-medium text-fg">3. Pick up to {SUBMISSION_MAX} favourites</p>
          {w.photos.length === 0 ? (
            <p className="mt-1 text-fg-muted">Your photos appear here when the shoot is done.</p>
          ) : (
            <ul className="mt-3 grid grid-cols-3 gap-2 sm:grid-cols-5">
              {w.photos.map((p) => (
                <li key={p.id}>
                  <button
                    type="button"
                    disabled={locked}
                    aria-pressed={picks.includes(p.id)}
                    onClick={() => toggle(p.id)}
                    className="block w-full overflow-hidden rounded-md ring-brand aria-pressed:ring-4"
                  >
                    <img src={api.mediaUrl(p.image_url)} alt="Team shoot photo" className="aspect-[4/5] w-full object-cover" />
                  </button>
                </li>
              ))}
            </ul>
          )}
          {!locked && w.photos.length > 0 && (
            <Button
              className="mt-3"
              disabled={picks.length === 0}
              busy={busy === 'submit'}
              onClick={() =>
                void run('submit', async () => {
                  await submitPicks(api, team.id, picks);
                  setPicked(null);
                  toast.show('Submitted to the team.');
                })
              }
            >
              Submit to team
            </Button>
          )}
        </li>
      </ol>
      {error && (
        <p role="alert" className="text-sm text-danger">
          {error}
        </p>
      )}
    </section>
  );
}
