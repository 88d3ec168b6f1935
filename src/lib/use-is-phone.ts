import { useSyncExternalStore } from 'react';
import { LAYOUT } from '@common/product';

const QUERY = `(max-width: ${LAYOUT.mobileBreakpointPx - 1}px)`;

function subscribe(onChange: () => void) {
  const media = window.matchMedia?.(QUERY);
  media?.addEventListener('change', onChange);
  return () => media?.removeEventListener('change', onChange);
}

/** True below the 768px breakpoint (product §9), following window resizes. */
export function useIsPhone(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia?.(QUERY).matches ?? false,
    () => false,
  );
}
