import type { RealtimeEventType } from '@common/events';
import type { ChangeTopic, LivePort } from '../port';
import type { EventsPort } from './events';

const TOPIC_EVENT: Record<ChangeTopic, RealtimeEventType> = {
  generations: 'generation',
  trainings: 'training',
  subscription: 'subscription',
  shoots: 'shoot',
  teams: 'team',
};

/**
 * Subscriptions to changes over the server's event stream (one shared EventSource, see events.ts). The
 * stream's events are already per user; a reconnection after a drop is reported as stale lists.
 */
export function createLocalLive(events: EventsPort): LivePort {
  return {
    watchBalance: (onCredits) => events.subscribe((e) => e.type === 'credits' && onCredits(e.credits)),

    watchChanges: (topic, onChange) => events.subscribe((e) => e.type === TOPIC_EVENT[topic] && onChange()),

    watchSignedOut(onSignedOut) {
      let told = false;
      return events.subscribe(
        () => {},
        (status) => {
          if (status !== 'signed-out' || told) return;
          told = true;
          onSignedOut();
        },
      );
    },

    watchStale(onStale) {
      let wasOpen = false;
      return events.subscribe(
        (e) => e.type === 'resync' && onStale({ account: true }),
        (status) => {
          if (status === 'open' && wasOpen) onStale({ account: false });
          if (status === 'open') wasOpen = true;
        },
      );
    },
  };
}
