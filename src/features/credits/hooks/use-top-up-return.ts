import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { useConfirmTopUp } from '../api';
import { topUpReturnOf } from '@common/credits';

/**
 * A payer back from a pack's checkout lands here with a signed address: it is confirmed once (the server credits
 * the order unless the webhook already has) and taken out of the address bar, so a reload does not send it again.
 */
export function useTopUpReturn() {
  const [params, setParams] = useSearchParams();
  const confirm = useConfirmTopUp();
  const sent = useRef(false);
  const { mutate } = confirm;
  useEffect(() => {
    const fields = topUpReturnOf(params);
    if (!fields || sent.current) return;
    sent.current = true;
    mutate(fields);
    setParams({}, { replace: true });
  }, [params, setParams, mutate]);
  return confirm;
}
