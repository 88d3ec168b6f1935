import type { Backend } from '../port';
import { createHttpApi } from '../http-api';
import { createLocalData } from './data';
import { createLocalEvents } from './events';
import { createLocalIdentity } from './identity';
import { createLocalLive } from './live';

/** Local mode: built-in accounts, and every list, change and paid action through this product's server. */
export function createLocalBackend(): Backend {
  const api = createHttpApi();
  const identity = createLocalIdentity();
  return {
    mode: 'local',
    identity,
    data: createLocalData(api, { syncAtOnce: window.location.pathname.startsWith('/app/') }),
    // The stream reconnects only while the browser holds a valid session.
    live: createLocalLive(createLocalEvents('/api/events', async () => (await identity.loadUser()) !== null)),
    api,
  };
}
