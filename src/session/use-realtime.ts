import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import type { ChangeTopic, Me } from '@/backend/port';
import { signedOutPath } from './paths';
import { isSigningOut, meKey, useRefreshMe } from './api';

/**
 * Calls `onChange` whenever rows of `topic` may have changed, while the component is mounted. It is a
 * signal, not data: callers refetch.
 */
export function useChanges(topic: ChangeTopic, onChange: () => void) {
  const { live } = useBackend();
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => live.watchChanges(topic, () => latest.current()), [live, topic]);
}

/**
 * Keeps the signed-in user's record live: the balance as it changes, the record again after a subscription
 * change, and every query after a reconnection so nothing missed while away stays stale. When the backend
 * itself may have missed changes, the user's record is refreshed too.
 */
export function useLiveUserRecord() {
  const { live } = useBackend();
  const qc = useQueryClient();
  const refreshMe = useRefreshMe();
  useEffect(() => {
    const stops = [
      live.watchBalance((credits) => qc.setQueryData<Me>(meKey, (me) => (me && me.credits !== credits ? { ...me, credits } : me))),
      live.watchChanges('subscription', () => {
        refreshMe().catch((err: unknown) => console.error('Could not refresh the user record', err));
        void qc.invalidateQueries({ queryKey: ['billing'] });
      }),
      live.watchStale(({ account }) => void qc.invalidateQueries(account ? undefined : { predicate: (q) => q.queryKey[0] !== meKey[0] })),
      // The session ended elsewhere: to the sign-in page with a full load, so nothing of this account stays
      // in memory (as Sign Out does). This page's own Sign Out goes home instead: a second navigation here
      // would race it.
      live.watchSignedOut?.(() => {
        if (!isSigningOut()) window.location.assign(signedOutPath());
      }) ?? (() => {}),
    ];
    return () => stops.forEach((stop) => stop());
  }, [live, qc, refreshMe]);
}
