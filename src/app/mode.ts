import type { ComponentType, ReactNode } from 'react';
import type { AuthPages } from './router';

/** What a build's mode brings to the shared app shell (src/main.tsx): its session wrapper and sign-in pages. */
export interface StartedMode {
  /** Provides the backend (and the query cache) to everything below it, inside the router. */
  Session: ComponentType<{ children: ReactNode }>;
  authPages: AuthPages;
}
