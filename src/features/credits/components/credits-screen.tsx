import { Coins } from 'lucide-react';
import { Banner } from '@/components/ui/banner';
import { useMe } from '@/session/api';
import { useRefetchOnBalance } from '../hooks/use-refetch-on-balance';
import { useTopUpReturn } from '../hooks/use-top-up-return';
import { formatCredits } from '../lib/format';
import { CREDITS_TEXTS, failureMessage } from '../lib/messages';
import { HistoryPanel } from './history-panel';
import { PromoForm } from './promo-form';
import { SpendPanel } from './spend-panel';
import { TopUpPanel } from './top-up-panel';

/** /app/credits (issue 50): the balance, where it went, and ways to add to it. */
export function CreditsScreen() {
  const me = useMe();
  const topUp = useTopUpReturn();
  useRefetchOnBalance(me.credits);

  return (
    <div className="flex flex-col gap-6">
      <header className="flex flex-col gap-3 md:flex-row md:items-end md:justify-between">
        <div>
          <h1 className="text-2xl font-bold md:text-3xl">Credits</h1>
          <p className="mt-1.5 text-fg-muted">Where your credits went, and ways to get more.</p>
        </div>
        <p className="inline-flex w-fit items-center gap-2 rounded-full border border-border bg-bg px-3.5 py-1.5 text-sm font-semibold shadow-card">
          <Coins className="size-4 text-warning" aria-hidden />
          <span data-testid="balance">{formatCredits(me.credits)} credits available</span>
        </p>
      </header>

      {topUp.isPending && <Banner tone="blue">Confirming your payment…</Banner>}
      {topUp.isSuccess && (
        <Banner tone="green" title="Top-up complete" onDismiss={() => topUp.reset()}>
          {formatCredits(topUp.data.credits)} credits are in your balance.
        </Banner>
      )}
      {topUp.isError && (
        <Banner tone="red" onDismiss={() => topUp.reset()}>
          {failureMessage(topUp.error, CREDITS_TEXTS.returnError)}
        </Banner>
      )}

      <SpendPanel />
      <div className="grid gap-6 lg:grid-cols-2">
        <TopUpPanel />
        <PromoForm />
      </div>
      <HistoryPanel />
    </div>
  );
}
