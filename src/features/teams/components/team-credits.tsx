import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Coins } from 'lucide-react';
import { TOP_UP_PACKS, type TopUpPackId } from '@common/plans';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { buyTeamCredits } from '../api';
import { useTeamPurchaseReturn } from '../hooks/use-team-purchase-return';

/**
 * 'Buy team credits' (owner, issue 49 item 2): a credit pack through the usual one-time checkout (the sandbox
 * locally, Creem when configured); the webhook, or the signed return address the owner comes back with, grants it
 * to the team's balance once, which updates live here.
 */
export function TeamCredits({ teamId, credits }: { teamId: string; credits: number }) {
  const { api } = useBackend();
  const [busy, setBusy] = useState<TopUpPackId | null>(null);
  const [error, setError] = useState<string | null>(null);
  const back = useSearchParams()[0].get('purchase') === 'done';
  useTeamPurchaseReturn(teamId);

  const buy = async (pack: TopUpPackId) => {
    setBusy(pack);
    setError(null);
    try {
      window.location.assign(await buyTeamCredits(api, teamId, pack));
    } catch (err) {
      setError(errorMessage(err));
      setBusy(null);
    }
  };

  return (
    <section className="flex flex-col gap-3 rounded-lg border border-border bg-bg p-4" aria-label="Team credits">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-lg font-semibold text-fg">Team credits</h2>
        <p className="flex items-center gap-1.5 text-sm font-semibold tabular-nums text-fg" data-testid="team-balance">
          <Coins className="size-4 text-warning" aria-hidden />
          {credits.toLocaleString('en-US')} credits
        </p>
      </div>
      <p className="text-sm text-fg-muted">
        Members’ team training and team shoots are paid from this balance; nobody’s personal credits are used.
      </p>
      {back && (
        <p role="status" className="text-sm text-success">
          Thank you — the credits are added to the team as soon as the payment is confirmed.
        </p>
      )}
      <ul className="grid gap-2 sm:grid-cols-3">
        {TOP_UP_PACKS.map((pack) => (
          <li key={pack.id}>
            <Button
              variant="outline"
              className="h-auto w-full flex-col items-start gap-0.5 py-2.5 text-left"
              busy={busy === pack.id}
              disabled={busy !== null}
              onClick={() => void buy(pack.id)}
              aria-label={`Buy ${pack.label} for the team ($${pack.priceUsd})`}
            >
              <span className="font-semibold">{pack.label}</span>
              <span className="text-xs font-normal text-fg-muted">${pack.priceUsd} · one-time</span>
            </Button>
          </li>
        ))}
      </ul>
      {error && (
        <p role="alert" className="text-sm text-danger">
          {error}
        </p>
      )}
    </section>
  );
}
