/**
 * Hosted live events are a person's own: the hosted SPA's live adapter (src/backend/hosted/supabase-live.ts, as
 * the SPA opens it) for two people over the offline Supabase stack (tests/fakes/supabase-stack.ts: the Realtime
 * fake delivers as Supabase Realtime does — row-level security on inserts and updates, DELETE unchecked and
 * key-only, filters on the columns the change carries — over the real PostgreSQL with supabase/migrations).
 * Everything the server and the SPA do to Ann's rows, on every table the SPA subscribes to, reaches Ann and
 * nothing of it reaches Ben: not through his SPA, and not through channels a browser could ask for itself.
 */
import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChangeTopic } from '@/backend/port';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { createClerkTestKeys, type ClerkTestKeys } from '../helpers/clerk.ts';
import { createSupabaseDatabase, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';
import { sessionUser } from '../support/fake-backend.ts';

const REALTIME = { timeout: 10_000, interval: 50 };
const TOPICS: ChangeTopic[] = ['generations', 'trainings', 'shoots', 'teams'];

describe('hosted live events reach their owner only (postgres, the offline Supabase stack)', () => {
  let db: SupabaseTestDatabase;
  let clerk: ClerkTestKeys;
  let fakes: SupabaseFakes;
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    db = await createSupabaseDatabase();
    clerk = createClerkTestKeys();
    fakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
  }, 60_000);

  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  afterAll(async () => {
    await fakes?.stop();
    await db?.drop();
  });

  const q = (text: string, values: unknown[] = []) => db.owner.query(text, values);

  /** A signed-in person as the hosted SPA opens them, with every live subscription the SPA makes. */
  async function person(name: string) {
    const clerkId = `user_${name}_${randomUUID().slice(0, 8)}`;
    const config = { publishableKey: 'pk_test_x', supabaseUrl: fakes.url, supabaseAnonKey: fakes.anonKey, apiUrl: 'https://api.test' };
    const session = openSupabaseSession(config, () => clerk.mint({ sub: clerkId }));
    closers.push(() => session.close());
    const me = await session.data.syncUser(
      sessionUser({ id: clerkId, fullName: name, primaryEmailAddress: { emailAddress: `${name}@example.com` } }),
    );
    await fakes.realtime.settled(); // the sync's own writes are not the changes under test
    const balance = vi.fn();
    const signals = Object.fromEntries(TOPICS.map((topic) => [topic, vi.fn<() => void>()])) as Record<
      ChangeTopic,
      ReturnType<typeof vi.fn<() => void>>
    >;
    const stops = [session.live.watchBalance(balance), ...TOPICS.map((topic) => session.live.watchChanges(topic, signals[topic]))];
    closers.push(() => stops.forEach((stop) => stop()));
    // Each subscription signals once when SUBSCRIBED (a refetch in case something was missed).
    await vi.waitFor(() => {
      expect(balance).toHaveBeenCalledWith(0);
      for (const topic of TOPICS) expect(signals[topic]).toHaveBeenCalled();
    }, REALTIME);
    await vi.waitFor(() => expect(fakes.realtime.channels().filter((c) => c.sub === clerkId)).toHaveLength(6), REALTIME);
    return { clerkId, me, session, balance, signals };
  }

  /** A channel a browser may open with its own token, asking for whatever it likes. */
  async function snoop(clerkId: string, table: string, filter?: string) {
    const supabase: SupabaseClient = createClient(fakes.url, fakes.anonKey, {
      accessToken: () => clerk.mint({ sub: clerkId }),
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    closers.push(() => {
      void supabase.removeAllChannels();
      supabase.realtime.disconnect();
    });
    await supabase.realtime.setAuth();
    const heard: unknown[] = [];
    const channel = supabase
      .channel(`snoop-${table}-${filter ? 'filtered' : 'all'}`)
      .on('postgres_changes', { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) }, (payload) => heard.push(payload));
    await new Promise<void>((resolve, reject) =>
      channel.subscribe((status, err) => (status === 'SUBSCRIBED' ? resolve() : reject(err ?? new Error(status)))),
    );
    return heard;
  }

  it('Ben hears nothing of Ann’s inserts, updates and deletions on any table the SPA subscribes to; Ann hears each', async () => {
    const ann = await person('ann');
    const ben = await person('ben');

    // The SPA subscribes to every table the publication streams, each filtered to the person's own rows.
    const published = (
      await q(`select tablename from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public'`)
    ).rows
      .map((r) => r.tablename as string)
      .sort();
    expect(published).toEqual(['generations', 'lora_trainings', 'photo_shoots', 'shoot_photos', 'team_members', 'user_public_meta']);
    const bens = fakes.realtime.channels().filter((c) => c.sub === ben.clerkId);
    expect(bens.flatMap((c) => c.subscriptions.map((s) => s.table)).sort()).toEqual(published);
    expect(new Set(bens.flatMap((c) => c.subscriptions.map((s) => s.filter)))).toEqual(new Set([`user_id=eq.${ben.me.id}`]));

    // A browser asking for more: every published table, unfiltered and filtered by Ann's id.
    const asked = await Promise.all(
      published.flatMap((table) => [snoop(ben.clerkId, table), snoop(ben.clerkId, table, `user_id=eq.${ann.me.id}`)]),
    );
    const from = fakes.realtime.deliveries.length;
    const seenByBen = {
      balance: ben.balance.mock.calls.length,
      ...Object.fromEntries(TOPICS.map((t) => [t, ben.signals[t].mock.calls.length])),
    };

    // What the server writes for Ann (as the tables' owner), and what her SPA writes itself.
    const annId = ann.me.id;
    const [pack] = (
      await q(
        `insert into photo_packs (id, name, description, category, aspect_ratio, width, height) values ($1, 'Studio', 'd', 'c', '1:1', 1024, 1024) returning id`,
        [`pack-${randomUUID().slice(0, 8)}`],
      )
    ).rows;
    const [training] = (
      await q(
        `insert into lora_trainings (user_id, character_name, status, request_id) values ($1, 'Ann', 'IN_PROGRESS', $2) returning id`,
        [annId, randomUUID()],
      )
    ).rows;
    await q(`update lora_trainings set status = 'COMPLETED', lora_file_url = '/media/loras/a.safetensors' where id = $1`, [training.id]);
    const [generation] = (
      await q(
        `insert into generations (user_id, prompt, width, height, image_url) values ($1, 'p', 512, 512, '/media/generations/g.jpeg') returning id`,
        [annId],
      )
    ).rows;
    await ann.session.data.setFavorite(generation.id, true);
    const [shoot] = (
      await q(
        `insert into photo_shoots (user_id, pack_id, lora_id, pack_name, character_name, photo_count, cost) values ($1, $2, $3, 'Studio', 'Ann', 1, 10) returning id`,
        [annId, pack.id, training.id],
      )
    ).rows;
    await q(`insert into shoot_photos (shoot_id, user_id, position, prompt, width, height, seed) values ($1, $2, 0, 'p', 1024, 1024, 7)`, [
      shoot.id,
      annId,
    ]);
    await q(`update shoot_photos set status = 'SUCCEEDED' where shoot_id = $1`, [shoot.id]);
    await q(`update photo_shoots set status = 'COMPLETED' where id = $1`, [shoot.id]);
    const [team] = (await q(`insert into teams (name, owner_id) values ('Ann & Co', $1) returning id`, [annId])).rows;
    await q(`insert into team_members (team_id, user_id, role) values ($1, $2, 'owner')`, [team.id, annId]);
    await q(`update team_members set submission_status = 'submitted' where team_id = $1`, [team.id]);
    await q('update user_public_meta set credits = 990 where user_id = $1', [annId]);
    // Deletions a person makes: the generation through her SPA, the character through the server.
    await ann.session.data.deleteGeneration(generation.id);
    await q(`update lora_trainings set deleted_at = now(), lora_file_url = null where id = $1`, [training.id]);
    // Realtime checks a change against the row as it is when it gets to it: let these arrive before the rows go.
    await fakes.realtime.settled();
    // What erasure and retention remove for good.
    const erase = await db.owner.connect();
    try {
      await erase.query('begin');
      for (const table of ['generations', 'photo_shoots', 'lora_trainings', 'team_members'])
        await erase.query(`delete from ${table} where user_id = $1`, [annId]);
      await erase.query('commit');
    } finally {
      erase.release();
    }
    await fakes.realtime.settled();

    const delivered = fakes.realtime.deliveries.slice(from);
    expect(delivered.filter((d) => d.sub === ben.clerkId)).toEqual([]);
    for (const heard of asked) expect(heard).toEqual([]);
    expect({
      balance: ben.balance.mock.calls.length,
      ...Object.fromEntries(TOPICS.map((t) => [t, ben.signals[t].mock.calls.length])),
    }).toEqual(seenByBen);

    // Ann heard of each of her own changes, deletions as updates; no DELETE went to anyone.
    const annHeard = new Set(delivered.filter((d) => d.sub === ann.clerkId).map((d) => `${d.table} ${d.type}`));
    expect([...annHeard].sort()).toEqual(
      [
        'generations INSERT',
        'generations UPDATE',
        'lora_trainings INSERT',
        'lora_trainings UPDATE',
        'photo_shoots INSERT',
        'photo_shoots UPDATE',
        'shoot_photos INSERT',
        'shoot_photos UPDATE',
        'team_members INSERT',
        'team_members UPDATE',
        'user_public_meta UPDATE',
      ].sort(),
    );
    expect(delivered.filter((d) => d.type === 'DELETE')).toEqual([]);
    await vi.waitFor(() => expect(ann.balance).toHaveBeenLastCalledWith(990), REALTIME);
    for (const topic of TOPICS) expect(ann.signals[topic].mock.calls.length).toBeGreaterThan(1);
  }, 60_000);
});
