import type { Backend } from '../port';
import { createHttpApi } from '../http-api';
import { createLocalData } from './data';
import { createLocalEvents } from './events';
import { createLocalIdentity } from './identity';
import { createLocalLive } from './live';

/** Local mode: built-in accounts, and every list, change and paid action through this product's server. */
export function createLocalBackend(): Backend {
  const api = createHttpApi();
  return {
    mode: 'local',
    identity: createLocalIdentity(),
    data: createLocalData(api),
    live: createLocalLive(createLocalEvents()),
    api,
  };
}
