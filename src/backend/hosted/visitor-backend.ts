import type { Backend, DataPort } from '../port';
import { createHttpApi } from '../http-api';
import type { HostedConfig } from './hosted-config';

const signedOut = async (): Promise<never> => {
  throw new Error('Sign in to see this.');
};

/**
 * The hosted build's backend for a visitor with no Clerk session in this browser, on the public pages:
 * nobody is signed in, and only our server's public calls (its public configuration) are made. Anything
 * that needs an account switches to the Clerk session first (src/app/hosted-mode.tsx).
 */
export function createVisitorBackend(config: HostedConfig): Backend {
  const data: DataPort = {
    syncUser: signedOut,
    generationsPage: signedOut,
    recentGenerations: signedOut,
    generation: signedOut,
    setFavorite: signedOut,
    deleteGeneration: signedOut,
    trainings: signedOut,
    characters: signedOut,
    explorePage: signedOut,
    exploreFilterOptions: signedOut,
    exploreFeatured: signedOut,
    balance: signedOut,
    photoPacks: signedOut,
    shoots: signedOut,
    shoot: signedOut,
    creditHistory: signedOut,
  };
  const never = () => () => {};
  return {
    mode: 'hosted',
    identity: {
      loadUser: async () => null,
      getToken: async () => null,
      signIn: signedOut,
      signUp: signedOut,
      signOut: async () => {},
    },
    data,
    live: { watchBalance: never, watchChanges: never, watchStale: never },
    api: createHttpApi({ baseUrl: config.apiUrl }),
  };
}
