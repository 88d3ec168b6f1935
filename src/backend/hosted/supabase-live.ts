import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { ChangeTopic, LivePort } from '../port';

/**
 * Tables the realtime publication streams (supabase/migrations/…_likeness_security.sql §7,
 * …_likeness_generations_realtime.sql and …_photo_shoots_security.sql §3); each has the owner's user_id.
 */
const STREAMED: Partial<Record<ChangeTopic, string[]>> = {
  trainings: ['lora_trainings'],
  shoots: ['photo_shoots', 'shoot_photos'],
  generations: ['generations'],
  // The member's own membership row (its submission's status); leads refetch on their page's actions.
  teams: ['team_members'],
};

let channelCount = 0;

/**
 * Subscriptions to changes over Supabase Realtime channels. Events and the SUBSCRIBED status (also after
 * a rejoin, when changes may have been missed) are signals to refetch through the data port, never data.
 *
 * Every subscription names the user's own rows (`user_id=eq.<users.id>`): Realtime checks each insert and
 * update against row-level security once per matching subscriber, so the filter keeps others' changes from
 * costing a check per open tab. Deletions reach the SPA as updates (a generation's status, a character's
 * deleted_at), which row-level security lets only their owner see; the publication streams no DELETE at all
 * (supabase/migrations/…_realtime_no_deletes.sql), because Realtime sends a DELETE's key to every unfiltered
 * subscriber of the table, unchecked (docs/decisions/010-hosted-spa.md).
 *
 * Each subscription is its own channel (supabase-js hands out the same channel for the same name, and a
 * joined channel takes no more listeners), removed when its screen unmounts. The socket rejoins its
 * channels after a disconnect by itself, so nothing is subscribed twice.
 */
export function createSupabaseLive(supabase: SupabaseClient, opts: { userId: () => string; balance: () => Promise<number> }): LivePort {
  /** Opens a channel once the realtime token is set (a join sent before it would run as anon and be refused). */
  function watch(table: string, onSignal: () => void): () => void {
    const filter = `user_id=eq.${opts.userId()}`;
    let channel: RealtimeChannel | null = null;
    let stopped = false;
    void (async () => {
      await supabase.realtime.setAuth();
      if (stopped) return;
      channel = supabase
        .channel(`${table}:${++channelCount}`)
        .on('postgres_changes', { event: '*', schema: 'public', table, filter }, () => onSignal())
        .subscribe((status, err) => {
          if (status === 'SUBSCRIBED') onSignal();
          else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') console.warn(`Realtime ${table}: ${status}`, err ?? '');
        });
    })().catch((err: unknown) => console.error(`Could not subscribe to ${table} changes`, err));
    return () => {
      stopped = true;
      if (channel) void supabase.removeChannel(channel);
    };
  }

  return {
    watchBalance(onCredits) {
      let stopped = false;
      const refetch = () =>
        opts
          .balance()
          .then((credits) => !stopped && onCredits(credits))
          .catch((err: unknown) => console.error('Could not read the balance', err));
      const unwatch = watch('user_public_meta', refetch);
      return () => {
        stopped = true;
        unwatch();
      };
    },

    watchChanges(topic, onChange) {
      const tables = STREAMED[topic];
      // The users row is not in the realtime publication: a subscription change comes back through a full
      // page load from checkout.
      if (!tables) return () => {};
      const stops = tables.map((table) => watch(table, onChange));
      return () => stops.forEach((stop) => stop());
    },

    // Each channel's SUBSCRIBED after a rejoin already asks its listener to refetch.
    watchStale: () => () => {},
  };
}
