import { TOP_UP_PACKS } from '@common/plans';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useTopUpCheckout } from '../api';
import { formatCredits } from '../lib/format';
import { CREDITS_TEXTS, failureMessage } from '../lib/messages';

/** The three one-off packs: each button starts its one-time checkout. */
export function TopUpPanel() {
  const checkout = useTopUpCheckout();
  return (
    <Card className="flex flex-col gap-4 p-5 md:p-6">
      <div>
        <h2 className="text-lg font-semibold">Top up</h2>
        <p className="mt-1 text-sm text-fg-muted">One-off credit packs, paid once and kept across renewals.</p>
      </div>
      {checkout.isError && (
        <Banner tone="red" onDismiss={() => checkout.reset()}>
          {failureMessage(checkout.error, CREDITS_TEXTS.topUpError)}
        </Banner>
      )}
      <div className="grid gap-2 sm:grid-cols-3">
        {TOP_UP_PACKS.map((pack) => (
          <Button
            key={pack.id}
            variant="outline"
            size="lg"
            className="h-auto flex-col gap-0.5 py-3"
            busy={checkout.isPending && checkout.variables === pack.id}
            disabled={checkout.isPending}
            onClick={() => checkout.mutate(pack.id)}
            aria-label={`Buy ${pack.label} for $${pack.priceUsd}`}
          >
            <span className="font-semibold">{formatCredits(pack.credits)} credits</span>
            <span className="text-sm text-fg-muted">${pack.priceUsd}</span>
          </Button>
        ))}
      </div>
    </Card>
  );
}
