import { createContext, useContext, type ReactNode } from 'react';
import type { Backend } from './port';
import { createLocalApi } from './local/api';
import { createLocalEvents } from './local/events';
import { createLocalIdentity } from './local/identity';

const BackendContext = createContext<Backend | null>(null);

export function createLocalBackend(): Backend {
  return { identity: createLocalIdentity(), api: createLocalApi(), events: createLocalEvents() };
}

export function BackendProvider({ backend, children }: { backend: Backend; children: ReactNode }) {
  return <BackendContext.Provider value={backend}>{children}</BackendContext.Provider>;
}

export function useBackend(): Backend {
  const backend = useContext(BackendContext);
  if (!backend) throw new Error('useBackend needs a BackendProvider');
  return backend;
}
