import type { RealtimeEvent } from '@common/events';

/**
 * What the SPA needs from its backend. The local adapter talks to this product's own server; a hosted
 * adapter (Clerk + Supabase) can implement the same port later.
 */

/** The signed-in person as the identity provider describes them (spec §3 "Identity provider user"). */
export interface SessionUser {
  id: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  imageUrl: string | null;
  primaryEmailAddress: { emailAddress: string } | null;
  emailAddresses: { emailAddress: string }[];
  createdAt: string;
}

export interface IdentityPort {
  /** The current user, or null when signed out. */
  loadUser(): Promise<SessionUser | null>;
  /** A token proving the session, or null when there is none. */
  getToken(): Promise<string | null>;
  signIn(input: { email: string; password: string }): Promise<void>;
  signUp(input: { name: string; email: string; password: string }): Promise<void>;
  signOut(): Promise<void>;
}

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

export interface EventsPort {
  /** Subscribes to the user's realtime events; one connection is shared by every subscriber. */
  subscribe(onEvent: (event: RealtimeEvent) => void, onStatus?: (status: ConnectionStatus) => void): () => void;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface ApiPort {
  request<T>(path: string, opts?: RequestOptions): Promise<T>;
}

export interface Backend {
  identity: IdentityPort;
  api: ApiPort;
  events: EventsPort;
}
