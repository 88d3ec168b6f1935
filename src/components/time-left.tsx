import { useEffect, useState } from 'react';
import { timeLeftText } from '@common/text';

/**
 * 'about M min left' / 'about S s left', counting down by the second from the estimate made when the work last
 * changed (measured on this device's clock, so a server clock that differs does not matter). Not announced:
 * a reader hears the counts change, not every second. Used by a shoot's and a training's progress.
 */
export function TimeLeft({ msLeft, className }: { msLeft: number; className?: string }) {
  const [since, setSince] = useState(() => ({ msLeft, at: Date.now() }));
  const [now, setNow] = useState(() => Date.now());
  if (since.msLeft !== msLeft) setSince({ msLeft, at: Date.now() });
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <span aria-live="off" className={className}>
      {timeLeftText(Math.max(1000, since.msLeft - (now - since.at)))}
    </span>
  );
}
