import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RealtimeEvent, RealtimeEventType } from '@common/events';
import { useBackend } from '@/backend/backend-context';
import { meKey, type Me } from './api';

/** Calls `handler` for each realtime event of the given type while the component is mounted. */
export function useRealtimeEvent<T extends RealtimeEventType>(type: T, handler: (event: Extract<RealtimeEvent, { type: T }>) => void) {
  const { events } = useBackend();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(
    () =>
      events.subscribe((event) => {
        if (event.type === type) latest.current(event as Extract<RealtimeEvent, { type: T }>);
      }),
    [events, type],
  );
}

/**
 * Keeps the signed-in user's record live: balance and subscription changes arrive over the event stream, and
 * after a reconnect every query is refreshed so nothing missed while away stays stale. A `resync` (the server
 * itself may have missed events for a moment) refreshes everything, the user's record included.
 */
export function useLiveUserRecord() {
  const { events } = useBackend();
  const qc = useQueryClient();
  useEffect(() => {
    let wasOpen = false;
    return events.subscribe(
      (event) => {
        if (event.type === 'credits') qc.setQueryData<Me>(meKey, (me) => (me ? { ...me, credits: event.credits } : me));
        if (event.type === 'subscription') {
          qc.setQueryData<Me>(meKey, (me) => (me ? { ...me, subscription_status: event.status, subscription_plan: event.plan } : me));
          void qc.invalidateQueries({ queryKey: ['billing'] });
        }
        if (event.type === 'resync') void qc.invalidateQueries();
      },
      (status) => {
        if (status === 'open' && wasOpen) void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== meKey[0] });
        if (status === 'open') wasOpen = true;
      },
    );
  }, [events, qc]);
}
