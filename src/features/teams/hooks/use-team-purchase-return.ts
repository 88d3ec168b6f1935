import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { topUpReturnOf } from '@common/credits';
import { useBackend } from '@/backend/backend-context';
import { confirmTeamPurchase, teamsKey } from '../api';

/**
 * The owner back on the team page from a team pack's checkout, with the provider's signed return address: it is
 * sent once (the server grants the order unless its webhook already has) and taken out of the address bar, so a
 * reload does not send it again; `purchase=done` stays for the thank-you line.
 */
export function useTeamPurchaseReturn(teamId: string) {
  const { api } = useBackend();
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const sent = useRef(false);
  useEffect(() => {
    const fields = topUpReturnOf(params);
    if (!fields || sent.current) return;
    sent.current = true;
    setParams({ purchase: 'done' }, { replace: true });
    confirmTeamPurchase(api, teamId, fields)
      .catch((err: unknown) => console.error('Confirming the team purchase failed', err))
      // The team's balance, on its page and in the space switcher.
      .finally(() => void qc.invalidateQueries({ queryKey: teamsKey }));
  }, [api, qc, params, setParams, teamId]);
}
