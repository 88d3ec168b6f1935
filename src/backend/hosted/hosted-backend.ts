import { SERVER_BILLING_ENDPOINTS, type Backend, type DataPort, type LivePort } from '../port';
import { createHttpApi } from '../http-api';
import { createClerkIdentity, type ClerkLike } from './clerk-identity';
import type { HostedConfig } from './hosted-config';
import type { ClerkScriptWatch } from './clerk-script-watch';

type SupabaseSession = ReturnType<(typeof import('./supabase-session'))['openSupabaseSession']>;

/**
 * Hosted mode for one Clerk session: identity from Clerk, lists and live changes from Supabase, paid
 * actions from our server at VITE_API_URL with the session token. Supabase's code is loaded the first time
 * a signed-in screen asks for data, so the public pages never download it.
 */
export function createHostedBackend(clerk: ClerkLike, config: HostedConfig, scripts?: ClerkScriptWatch): Backend & { close(): void } {
  const identity = createClerkIdentity(clerk, scripts);
  const api = createHttpApi({ baseUrl: config.apiUrl, getToken: () => identity.getToken() });
  let session: Promise<SupabaseSession> | null = null;
  const open = () =>
    (session ??= import('./supabase-session').then((m) =>
      m.openSupabaseSession(config, () => identity.getToken(), { mediaUrl: api.mediaUrl }),
    ));
  const withData = <T>(use: (data: DataPort) => Promise<T>) => open().then((s) => use(s.data));

  /** Subscribes once Supabase is loaded; the returned function works before and after that. */
  const watch = (subscribe: (live: LivePort) => () => void) => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    open()
      .then((s) => {
        if (!cancelled) stop = subscribe(s.live);
      })
      .catch((err: unknown) => console.error('Could not subscribe to changes', err));
    return () => {
      cancelled = true;
      stop?.();
    };
  };

  return {
    mode: 'hosted',
    identity,
    api,
    billing: {
      checkout: config.checkoutWorkerUrl || SERVER_BILLING_ENDPOINTS.checkout,
      portal: config.portalWorkerUrl || SERVER_BILLING_ENDPOINTS.portal,
    },
    data: {
      syncUser: (user) => withData((d) => d.syncUser(user)),
      generationsPage: (query, signal) => withData((d) => d.generationsPage(query, signal)),
      recentGenerations: (limit, signal) => withData((d) => d.recentGenerations(limit, signal)),
      generation: (id, signal) => withData((d) => d.generation(id, signal)),
      setFavorite: (id, isFavorite) => withData((d) => d.setFavorite(id, isFavorite)),
      deleteGeneration: (id) => withData((d) => d.deleteGeneration(id)),
      trainings: (signal) => withData((d) => d.trainings(signal)),
      characters: (signal) => withData((d) => d.characters(signal)),
      explorePage: (filters, page, signal) => withData((d) => d.explorePage(filters, page, signal)),
      exploreFilterOptions: (signal) => withData((d) => d.exploreFilterOptions(signal)),
      exploreFeatured: (signal) => withData((d) => d.exploreFeatured(signal)),
      balance: (signal) => withData((d) => d.balance(signal)),
      photoPacks: (signal) => withData((d) => d.photoPacks(signal)),
      shoots: (opts, signal) => withData((d) => d.shoots(opts, signal)),
      shoot: (id, signal) => withData((d) => d.shoot(id, signal)),
      creditHistory: (query, signal) => withData((d) => d.creditHistory(query, signal)),
    },
    live: {
      watchBalance: (onCredits) => watch((live) => live.watchBalance(onCredits)),
      watchChanges: (topic, onChange) => watch((live) => live.watchChanges(topic, onChange)),
      watchStale: (onStale) => watch((live) => live.watchStale(onStale)),
    },
    /** Ends the session's realtime connection and token refresh; a later call opens a new one. */
    close() {
      const closing = session;
      session = null;
      void closing?.then((s) => s.close());
    },
  };
}
