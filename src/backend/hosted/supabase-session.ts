import { createClient, type SupabaseClientOptions } from '@supabase/supabase-js';
import { TIMINGS } from '@common/product';
import { NO_TOKEN_MESSAGE } from '../api-error';
import { mediaUrlOn } from '../http-api';
import type { DataPort, LivePort } from '../port';
import type { HostedConfig } from './hosted-config';
import { createSupabaseData } from './supabase-data';
import { createSupabaseLive } from './supabase-live';

/**
 * One Supabase client for one Clerk session (product §4 "Data client token"): every request carries the
 * session's current token, the realtime connection gets a fresh one about every 55 s, and no session of
 * Supabase's own is kept, refreshed or read from the URL. Loaded only once a signed-in screen needs data.
 */
export function openSupabaseSession(
  config: HostedConfig,
  getToken: () => Promise<string | null>,
  /**
   * `realtime`: Supabase's realtime options (Node and jsdom tests give it the `ws` transport). `mediaUrl`: the
   * backend's own ApiPort.mediaUrl; by default, media URLs on `config.apiUrl` (the same).
   */
  opts: { tokenRefreshMs?: number; realtime?: SupabaseClientOptions<'public'>['realtime']; mediaUrl?: (path: string) => string } = {},
) {
  const supabase = createClient(config.supabaseUrl, config.supabaseAnonKey, {
    // A missing token is an error, never null: supabase-js would send the anon key instead, and the
    // user's lists would come back silently empty.
    accessToken: async () => {
      const token = await getToken();
      if (!token) throw new Error(NO_TOKEN_MESSAGE);
      return token;
    },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: opts.realtime,
  });
  // Lists are retried by the query layer; one retry policy is enough. supabase-js 2.109 (the last that npm
  // installs on Node 20 without an engines warning) has no `db.retry` option yet; its PostgREST client reads
  // this field for every query it builds.
  (supabase as unknown as { rest: { retry?: boolean } }).rest.retry = false;

  const refresh = setInterval(() => {
    supabase.realtime.setAuth().catch((err: unknown) => console.warn('Could not refresh the realtime token', err));
  }, opts.tokenRefreshMs ?? TIMINGS.tokenRefreshMs);

  const data = createSupabaseData(supabase, { media: opts.mediaUrl ?? mediaUrlOn(config.apiUrl) });
  const live = createSupabaseLive(supabase, { userId: data.userId, balance: () => data.balance() });

  return {
    data: data as DataPort,
    live: live as LivePort,
    close() {
      clearInterval(refresh);
      void supabase.removeAllChannels();
    },
  };
}
