/**
 * Events the server pushes to a signed-in user's browser over /api/events (server-sent events).
 * `type` is the SSE event name; the rest is the JSON data.
 */
export type RealtimeEvent =
  | { type: 'credits'; credits: number }
  | { type: 'subscription'; status: string | null; plan: string | null }
  | { type: 'generation'; action: 'created' | 'updated' | 'deleted' | 'restored'; id: string }
  | { type: 'training'; action: 'created' | 'updated' | 'deleted' | 'restored'; id: string; status: string }
  /** A photo shoot or one of its photos changed. */
  | { type: 'shoot'; id: string; status: string }
  /** A team's balance or a member's team work changed (issue 49); sent to the team's leads and the member. */
  | { type: 'team'; teamId: string; credits?: number }
  /** The server may have missed events for a moment (its database connection dropped): refetch what is shown. */
  | { type: 'resync' };

export type RealtimeEventType = RealtimeEvent['type'];
export const REALTIME_EVENT_TYPES: readonly RealtimeEventType[] = [
  'credits',
  'subscription',
  'generation',
  'training',
  'shoot',
  'team',
  'resync',
];

/**
 * The last event of a stream whose session or token has ended (sign-out, password change or reset, account
 * deletion or erasure, an expired token). The browser does not reconnect unless it still holds a valid session.
 */
export const SIGNED_OUT_EVENT = 'signed-out';
