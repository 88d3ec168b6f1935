import { randomUUID } from 'node:crypto';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { shootCost } from '@common/photo-shoots';
import { openDatabase, type Database } from '../../server/db/index.ts';
import { createLogger } from '../../server/logger.ts';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { readCatalogue, seedCatalogue } from '../../server/services/packs.service.ts';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { sessionUser } from '../support/fake-backend.ts';
import { createClerkTestKeys, type ClerkTestKeys } from './clerk.ts';
import { createSupabaseDatabase, type SupabaseTestDatabase } from './supabase-db.ts';

/** A signed-in person of startHostedShoots, with a completed character. */
export interface HostedPerson {
  me: Awaited<ReturnType<HostedSession['data']['syncUser']>>;
  session: HostedSession;
  clerkId: string;
  characterId: string;
  characterName: string;
}
type HostedSession = ReturnType<typeof openSupabaseSession>;

/**
 * Hosted photo shoots on real Postgres with supabase/migrations and their row-level security: the PostgREST
 * fake the SPA reads through, and the server's own connection (as the tables' owner, as in production) with
 * the catalogue seeded by the server's code. People sign in with Clerk tokens; the server writes their shoots.
 */
export async function startHostedShoots(idPrefix: string) {
  const db: SupabaseTestDatabase = await createSupabaseDatabase();
  const clerk: ClerkTestKeys = createClerkTestKeys();
  const fakes: SupabaseFakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
  const server: Database = await openDatabase({ databaseUrl: db.url, dataDir: '/nonexistent', logger: createLogger('silent') });
  const catalogue = readCatalogue();
  await seedCatalogue(server.db, catalogue);
  const sessions: { close(): void }[] = [];

  /** A signed-in person (their users row made by the SPA's own sync) with a completed character. */
  async function person(name: string): Promise<HostedPerson> {
    const clerkId = `user_${idPrefix}_${name}_${randomUUID().slice(0, 8)}`;
    const session = openSupabaseSession(
      { publishableKey: 'pk_test_x', supabaseUrl: fakes.url, supabaseAnonKey: fakes.anonKey, apiUrl: '' },
      () => clerk.mint({ sub: clerkId }),
    );
    sessions.push(session);
    const me = await session.data.syncUser(
      sessionUser({ id: clerkId, fullName: name, primaryEmailAddress: { emailAddress: `${clerkId}@example.com` } }),
    );
    const {
      rows: [character],
    } = await db.owner.query<{ id: string }>(
      `insert into lora_trainings (user_id, character_name, trigger_word, status, lora_file_url, request_id)
       values ($1, $2, 'ohwx', 'COMPLETED', $3, $4) returning id`,
      [me.id, `${name}'s character`, `/media/loras/${me.id}/lora.safetensors`, randomUUID()],
    );
    return { me, session, clerkId, characterId: character.id, characterName: `${name}'s character` };
  }

  /** A shoot of a pack, every photo queued, written as the server starts one; its photos as stored. */
  async function insertShoot(
    owner: HostedPerson,
    { packIndex = 0, createdAt, firstSeed = 0 }: { packIndex?: number; createdAt?: Date; firstSeed?: number } = {},
  ) {
    const pack = catalogue.packs[packIndex];
    const id = randomUUID();
    await shootsRepository.insertShoot(
      server.db,
      {
        id,
        userId: owner.me.id,
        packId: pack.id,
        loraId: owner.characterId,
        packName: pack.name,
        characterName: owner.characterName,
        photoCount: pack.prompts.length,
        cost: shootCost(pack.prompts.length),
        ...(createdAt ? { createdAt } : {}),
      },
      pack.prompts.map((prompt, position) => ({
        shootId: id,
        userId: owner.me.id,
        position,
        prompt,
        width: 832,
        height: 1216,
        seed: firstSeed + position,
      })),
    );
    return { id, pack, photos: await shootsRepository.listPhotos(server.db, id) };
  }

  async function stop() {
    for (const s of sessions) s.close();
    await server.close();
    await fakes.stop();
    await db.drop();
  }

  return { db, clerk, fakes, server, catalogue, person, insertShoot, stop };
}

export type HostedShoots = Awaited<ReturnType<typeof startHostedShoots>>;
