import { useCallback, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LedgerEntry, LowBalanceStatus, SpendRange, SpendSummary } from '@common/credits';
import type { TopUpPackId } from '@common/plans';
import { useBackend } from '@/backend/backend-context';
import { downloadFile } from '@/lib/download-file';
import { redirectTo } from '@/lib/redirect';
import { failureMessage } from './lib/messages';

/** Every key starts with 'credits': a change of balance refetches them all (see useRefetchOnBalance). */
export const creditsKeys = {
  all: ['credits'] as const,
  history: (kind: LedgerEntry | undefined) => ['credits', 'history', kind ?? 'all'] as const,
  spend: (days: SpendRange) => ['credits', 'spend', days] as const,
  lowBalance: (balance: number) => ['credits', 'low-balance', balance] as const,
};

const kindParam = (kind: LedgerEntry | undefined) => (kind ? `kind=${kind}` : '');

// ---- The ledger's history, newest first, a page (50 lines) at a time ----------------------------------------

/** Our server's API locally; Supabase under row-level security in hosted mode (the backend's DataPort). */
export function useCreditHistory(kind: LedgerEntry | undefined) {
  const { data } = useBackend();
  return useInfiniteQuery({
    queryKey: creditsKeys.history(kind),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => data.creditHistory({ kind, cursor: pageParam }, signal),
    getNextPageParam: (last) => last.next_cursor,
  });
}

// ---- This period's spend by kind, and per day over 30 or 90 days ------------------------------------------

export function useSpend(days: SpendRange) {
  const { api } = useBackend();
  return useQuery({
    queryKey: creditsKeys.spend(days),
    queryFn: ({ signal }) => api.request<SpendSummary>(`/api/credits/spend?days=${days}`, { signal }),
    placeholderData: (previous) => previous,
  });
}

// ---- 'Download CSV' -----------------------------------------------------------------------------------------

export function useDownloadCsv(kind: LedgerEntry | undefined) {
  const { api } = useBackend();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const download = useCallback(async () => {
    setError(null);
    setBusy(true);
    try {
      const query = kindParam(kind);
      await downloadFile(api, `/api/credits/history.csv${query ? `?${query}` : ''}`, `credits-${kind ?? 'all'}.csv`);
    } catch (err) {
      console.error('The credits CSV could not be downloaded', err);
      setError(failureMessage(err, 'The CSV could not be downloaded. Please try again.'));
    } finally {
      setBusy(false);
    }
  }, [api, kind]);
  return { download, busy, error };
}

// ---- Top-ups: a pack's one-time checkout, and the signed return -------------------------------------------

/** Starts a pack's checkout (sandbox in local mode, the payment provider's page otherwise) and leaves for it. */
export function useTopUpCheckout() {
  const { api } = useBackend();
  return useMutation({
    mutationFn: async (pack: TopUpPackId) => {
      const { checkout_url } = await api.request<{ checkout_url: string }>('/api/credits/top-ups', { method: 'POST', body: { pack } });
      redirectTo(checkout_url);
    },
    onError: (err) => console.error('Top-up checkout failed', err),
  });
}

export type TopUpReturn = Record<string, string>;

/** The payer is back with a signed address: credits the order now unless its webhook already has (once in all). */
export function useConfirmTopUp() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (params: TopUpReturn) =>
      api.request<{ credited: boolean; credits: number; balance: number }>('/api/credits/top-ups/return', {
        method: 'POST',
        body: params,
      }),
    onSettled: () => qc.invalidateQueries({ queryKey: creditsKeys.all }),
  });
}

// ---- Promo codes --------------------------------------------------------------------------------------------

export function useRedeemPromo() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) =>
      api.request<{ credits: number; balance: number }>('/api/credits/promo', { method: 'POST', body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: creditsKeys.all }),
  });
}

// ---- Low balance --------------------------------------------------------------------------------------------

/** Whether `balance` (the live one) is below what the last paid action cost; asked again whenever it changes. */
export function useLowBalance(balance: number) {
  const { api } = useBackend();
  return useQuery({
    queryKey: creditsKeys.lowBalance(balance),
    queryFn: ({ signal }) => api.request<LowBalanceStatus>('/api/credits/low-balance', { signal }),
    staleTime: 60_000,
  });
}
