import type { Backend } from '../port';
import { createHttpApi } from '../http-api';
import { createLocalData } from './data';
import { createLocalEvents } from './events';
import { createLocalIdentity } from './identity';
import { createLocalLive } from './live';

/** Local mode: built-in accounts, and every list, change and paid action through this product's server. */
export function createLocalBackend(): Backend {
  const api = createHttpApi();
  // A page of the app opening needs both at once: who is signed in, and their record.
  const appPage = window.location.pathname.startsWith('/app/');
  const identity = createLocalIdentity({ loadAtOnce: appPage });
  return {
    mode: 'local',
    identity,
    data: createLocalData(api, { syncAtOnce: appPage }),
    // The stream reconnects only while the browser holds a valid session.
    live: createLocalLive(createLocalEvents('/api/events', async () => (await identity.loadUser()) !== null)),
    api,
  };
}
