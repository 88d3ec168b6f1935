import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { creditsKeys } from '../api';

/** The live balance moved (a job paid, a refund, a webhook's grant): the history and the sums are stale. */
export function useRefetchOnBalance(balance: number) {
  const qc = useQueryClient();
  const previous = useRef(balance);
  useEffect(() => {
    if (previous.current === balance) return;
    previous.current = balance;
    void qc.invalidateQueries({ queryKey: creditsKeys.all });
  }, [balance, qc]);
}
