import { useState } from 'react';
import { useLocation } from 'react-router';
import { CREDIT_COSTS } from '@common/product';
import { Banner } from '@/components/ui/banner';
import { TopUpActions } from '@/components/top-up-actions';
import { useMe } from '@/session/api';
import { useLowBalance } from '../api';
import { actionWords, formatCredits } from '../lib/format';

/**
 * The app-wide low-balance notice (issue 50 item 5): the balance is below what the last paid action cost. 'Top up'
 * leads to the credits page's packs, 'Upgrade Plan' to the plans. Not on the credits page itself, nor on Create
 * Image while that page shows its own 'Insufficient Credits'. Dismissed, it stays away until the balance changes.
 */
export function LowBalanceNotice() {
  const me = useMe();
  const { pathname } = useLocation();
  const status = useLowBalance(me.credits);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const ownNotice = pathname === '/app/credits' || (pathname === '/app/create-image' && me.credits < CREDIT_COSTS.generation);
  const data = status.data;
  if (ownNotice || !data?.low || !data.last || data.balance !== me.credits || dismissedAt === me.credits) return null;

  return (
    <Banner tone="amber" title="Your balance is low" onDismiss={() => setDismissedAt(me.credits)} className="mb-6">
      <p>
        You have {formatCredits(me.credits)} credits left, not enough for another {actionWords(data.last.kind)} (
        {formatCredits(data.last.cost)} credits).
      </p>
      <TopUpActions />
    </Banner>
  );
}
