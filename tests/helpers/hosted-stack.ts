import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { openDatabase, type Database } from '../../server/db/index.ts';
import { createLogger } from '../../server/logger.ts';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { sessionUser } from '../support/fake-backend.ts';
import { createClerkTestKeys, type ClerkTestKeys } from './clerk.ts';
import { createSupabaseDatabase, type SupabaseTestDatabase } from './supabase-db.ts';

export interface HostedStack {
  db: SupabaseTestDatabase;
  clerk: ClerkTestKeys;
  fakes: SupabaseFakes;
  /** The server's own connection to the same database (as the tables' owner), as in production. */
  server: Database;
  /** A new person signed in to the hosted SPA's Supabase session, synced (product §4). */
  signedIn(): Promise<{
    me: Awaited<ReturnType<ReturnType<typeof openSupabaseSession>['data']['syncUser']>>;
    session: ReturnType<typeof openSupabaseSession>;
  }>;
}

/**
 * The offline hosted stack for the enclosing describe block: real PostgreSQL with supabase/migrations and
 * row-level security, the Supabase fakes over it, Clerk's test keys, and the server's connection; stopped after.
 */
export function useHostedStack(name: string): HostedStack {
  const sessions: { close(): void }[] = [];
  const stack = {
    async signedIn() {
      const clerkId = `user_${name.toLowerCase()}_${randomUUID().slice(0, 8)}`;
      const session = openSupabaseSession(
        { publishableKey: 'pk_test_x', supabaseUrl: stack.fakes.url, supabaseAnonKey: stack.fakes.anonKey, apiUrl: '' },
        () => stack.clerk.mint({ sub: clerkId }),
      );
      sessions.push(session);
      const me = await session.data.syncUser(
        sessionUser({ id: clerkId, fullName: name, primaryEmailAddress: { emailAddress: `${clerkId}@example.com` } }),
      );
      return { me, session };
    },
  } as HostedStack;
  beforeAll(async () => {
    stack.db = await createSupabaseDatabase();
    stack.clerk = createClerkTestKeys();
    stack.fakes = await startSupabaseFakes({ databaseUrl: stack.db.url, jwtKey: stack.clerk.publicKeyPem });
    stack.server = await openDatabase({ databaseUrl: stack.db.url, dataDir: '/nonexistent', logger: createLogger('silent') });
  }, 60_000);
  afterAll(async () => {
    for (const s of sessions) s.close();
    await stack.server?.close();
    await stack.fakes?.stop();
    await stack.db?.drop();
  });
  return stack;
}
