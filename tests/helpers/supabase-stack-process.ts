/**
 * The offline Supabase stack (a scratch database with supabase/migrations, and tests/fakes/supabase-stack.ts)
 * in a Node process of its own, for jsdom tests: the database helper needs Node's module URLs, which
 * jsdom's transform rewrites (see the note in supabase-stack.ts). Started by `startSupabaseStackProcess`
 * (./supabase-stack-child.ts); prints one JSON line with its addresses, and stops when its stdin closes.
 *
 * Env: TEST_DATABASE_URL, and STACK_JWT_KEY, the PEM public key the session tokens are signed with.
 */
import { startSupabaseFakes } from '../fakes/supabase-stack.ts';
import { createSupabaseDatabase } from './supabase-db.ts';

const db = await createSupabaseDatabase();
const fakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: process.env.STACK_JWT_KEY });
process.stdout.write(`${JSON.stringify({ url: fakes.url, anonKey: fakes.anonKey, databaseUrl: db.url })}\n`);

process.stdin.on('end', () => {
  void (async () => {
    await fakes.stop();
    await db.drop();
    process.exit(0);
  })();
});
process.stdin.resume();
