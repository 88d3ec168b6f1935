/**
 * Row-level security and grants of supabase/migrations, on the run's real PostgreSQL (testDatabaseUrl):
 * every data-store query of product §7 run the way PostgREST runs it, for two signed-in people and for anon,
 * and every way around the rules the issue names.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, UnsecuredSupabaseError } from '../../server/db/index.ts';
import { buildSupabaseMigrations } from '../../server/db/supabase-migrations.ts';
import { createLogger } from '../../server/logger.ts';
import {
  ANON,
  clerkClaims,
  createSupabaseDatabase,
  ensureSupabaseRoles,
  supabaseMigrationFiles,
  type Claims,
  type SupabaseTestDatabase,
} from '../helpers/supabase-db.ts';

/** Postgres' "insufficient privilege" (no grant, or a row-level security check that failed). */
const DENIED = { code: '42501' };
const SERVER_ONLY = [
  'credit_ledger_days',
  'payment_events',
  'subscriptions',
  'uploads',
  'generation_jobs',
  'rate_limits',
  'auth_users',
  'auth_sessions',
  'auth_accounts',
  'auth_verifications',
];
const ALL_TABLES = [...SERVER_ONLY, 'credit_ledger', 'users', 'user_public_meta', 'generations', 'lora_trainings', 'explore_gallery'];

interface Person {
  claims: Claims;
  clerkId: string;
  id: string;
  generations: { active: string[]; deleted: string };
  trainings: { completed: string; inProgress: string; loraUrl: string };
}

describe('Supabase row-level security (postgres)', () => {
  let db: SupabaseTestDatabase;
  let a: Person;
  let b: Person;
  const as = (claims: Claims, text: string, values?: unknown[]) => db.asClaims(claims, text, values);

  /** A person with everything the server writes about them, written as the server does (the owner). */
  async function seed(name: string): Promise<Person> {
    const clerkId = `user_${name}_${randomUUID().slice(0, 8)}`;
    const q = (text: string, values: unknown[]) => db.owner.query(text, values);
    const {
      rows: [user],
    } = await q(
      `insert into users (clerk_id, email, full_name, credits, subscription_status, subscription_plan, creem_customer_id) values ($1, $2, $3, 100, 'active', 'BASIC', $4) returning id`,
      [clerkId, `${name}@example.com`, name, `cust_${name}`],
    );
    await q('update user_public_meta set credits = 100 where user_id = $1', [user.id]);
    await q(
      `insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after) values ($1, 100, 'grant', 'plan', $2, 100)`,
      [user.id, `k:${clerkId}`],
    );
    await q(
      `insert into subscriptions (id, provider, user_id, customer_id, plan, status) values ($1, 'creem', $2, $3, 'BASIC', 'active')`,
      [`sub_${clerkId}`, user.id, `cust_${name}`],
    );
    await q(`insert into payment_events (provider, event_id, event_type, payload) values ('creem', $1, 'subscription.paid', '{}')`, [
      `evt_${clerkId}`,
    ]);
    await q(
      `insert into uploads (user_id, storage_key, url, content_type, size_bytes, expires_at) values ($1, $2, $3, 'image/jpeg', 10, now() + interval '30 days')`,
      [user.id, `uploads/${user.id}/a.jpeg`, `/media/uploads/${user.id}/a.jpeg`],
    );
    await q(`insert into generation_jobs (user_id, input, provider) values ($1, '{"prompt":"secret"}', 'builtin')`, [user.id]);
    await q(`insert into rate_limits (key, count, window_start) values ($1, 1, now())`, [`sign-in:email:${name}@example.com`]);
    const loraUrl = `/media/loras/${user.id}/${randomUUID()}.json`;
    const {
      rows: [completed],
    } = await q(
      `insert into lora_trainings (user_id, character_name, status, lora_file_url, request_id, created_at) values ($1, $2, 'COMPLETED', $3, $4, now() - interval '1 hour') returning id`,
      [user.id, `${name} character`, loraUrl, randomUUID()],
    );
    const {
      rows: [inProgress],
    } = await q(
      `insert into lora_trainings (user_id, character_name, status, request_id) values ($1, 'second', 'IN_PROGRESS', $2) returning id`,
      [user.id, randomUUID()],
    );
    const active: string[] = [];
    for (const [i, prompt] of ['first', 'second'].entries()) {
      const {
        rows: [g],
      } = await q(
        `insert into generations (user_id, prompt, width, height, image_url, lora_id, created_at) values ($1, $2, 512, 512, $3, $4, now() - make_interval(mins => $5)) returning id`,
        [user.id, `${name} ${prompt}`, `/media/generations/${user.id}/${i}.jpeg`, i === 0 ? completed.id : null, 10 - i],
      );
      active.push(g.id);
    }
    const {
      rows: [deleted],
    } = await q(
      `insert into generations (user_id, prompt, width, height, image_url, status) values ($1, 'gone', 512, 512, '/media/x.jpeg', 'DELETED') returning id`,
      [user.id],
    );
    return {
      claims: clerkClaims(clerkId),
      clerkId,
      id: user.id,
      generations: { active, deleted: deleted.id },
      trainings: { completed: completed.id, inProgress: inProgress.id, loraUrl },
    };
  }

  beforeAll(async () => {
    db = await createSupabaseDatabase();
    a = await seed('ana');
    b = await seed('ben');
    for (let i = 0; i < 15; i++) {
      await db.owner.query(
        `insert into explore_gallery (image_url, prompt, width, height, style, gender, ethnicity, hair_color, is_featured, created_at) values ($1, $2, 512, 512, $3, $4, 'asian', $5, $6, now() - make_interval(mins => $7))`,
        [
          `/media/explore/${i}.jpeg`,
          `explore ${i}`,
          i % 2 ? 'cinematic' : 'portrait',
          i % 3 ? 'female' : 'male',
          i % 2 ? 'black' : 'brown',
          i % 5 === 0,
          i,
        ],
      );
    }
  }, 60_000);
  afterAll(() => db?.drop());

  describe('users (product §4 user sync, §7 queries)', () => {
    it('each person reads only their own row, by clerk_id or by id', async () => {
      const byClerkId = await as(a.claims, 'select id, clerk_id from users where clerk_id = $1 limit 1', [a.clerkId]);
      expect(byClerkId.rows).toEqual([{ id: a.id, clerk_id: a.clerkId }]);
      expect((await as(a.claims, 'select id from users where clerk_id = $1', [b.clerkId])).rows).toEqual([]);
      expect((await as(a.claims, 'select id, clerk_id from users')).rows).toEqual([{ id: a.id, clerk_id: a.clerkId }]);
      expect((await as(a.claims, 'select subscription_status, subscription_plan from users where id = $1', [a.id])).rows).toEqual([
        { subscription_status: 'active', subscription_plan: 'BASIC' },
      ]);
      expect((await as(a.claims, 'select subscription_status from users where id = $1', [b.id])).rows).toEqual([]);
      const billing = await as(
        a.claims,
        'select id, subscription_status, subscription_plan, creem_customer_id from users where clerk_id = $1',
        [a.clerkId],
      );
      expect(billing.rows).toEqual([
        { id: a.id, subscription_status: 'active', subscription_plan: 'BASIC', creem_customer_id: 'cust_ana' },
      ]);
    });

    it('creates one’s own row with 0 credits only, and it comes with its balance row', async () => {
      const newcomer = `user_new_${randomUUID().slice(0, 8)}`;
      const claims = clerkClaims(newcomer);
      const created = await as(claims, 'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 0) returning *', [
        newcomer,
        'new@example.com',
        'New Person',
      ]);
      expect(created.rows[0]).toMatchObject({
        clerk_id: newcomer,
        email: 'new@example.com',
        credits: 0,
        subscription_status: null,
        creem_customer_id: null,
      });
      expect((await as(claims, 'select credits from user_public_meta where user_id = $1', [created.rows[0].id])).rows).toEqual([
        { credits: 0 },
      ]);
      // The same sync again (another tab, or the server's own upsert first) changes nothing and fails nothing.
      const again = await as(
        claims,
        'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 0) on conflict (clerk_id) do nothing returning id',
        [newcomer, 'x@example.com', 'X'],
      );
      expect(again.rows).toEqual([]);

      const other = `user_other_${randomUUID().slice(0, 8)}`;
      const refusals: [string, string, unknown[]][] = [
        [
          'credits above 0',
          'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 5000)',
          [other, 'o@example.com', 'O'],
        ],
        [
          'somebody else’s clerk_id',
          'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 0)',
          [`user_someone_${randomUUID().slice(0, 8)}`, 'o@example.com', 'O'],
        ],
        [
          'a subscription',
          "insert into users (clerk_id, credits, subscription_status, subscription_plan) values ($1, 0, 'active', 'PROFESSIONAL')",
          [other],
        ],
        ['a customer id', "insert into users (clerk_id, credits, creem_customer_id) values ($1, 0, 'cust_ana')", [other]],
        ['a chosen id', 'insert into users (id, clerk_id, credits) values ($2, $1, 0)', [other, randomUUID()]],
        ['an erasure mark', 'insert into users (clerk_id, credits, erased_at) values ($1, 0, now())', [other]],
        [
          'a verified address',
          'insert into users (clerk_id, email, verified_email, credits) values ($1, $2, $2, 0)',
          [other, 'ben@example.com'],
        ],
      ];
      for (const [what, text, values] of refusals) await expect(as(clerkClaims(other), text, values), what).rejects.toMatchObject(DENIED);
      expect((await db.owner.query('select 1 from users where clerk_id = $1', [other])).rowCount).toBe(0);
    });

    it('updates only email, full_name and updated_at of one’s own row', async () => {
      const updated = await as(
        a.claims,
        'update users set email = $1, full_name = $2, updated_at = now() where clerk_id = $3 returning email, full_name',
        ['ana.new@example.com', 'Ana New', a.clerkId],
      );
      expect(updated.rows).toEqual([{ email: 'ana.new@example.com', full_name: 'Ana New' }]);
      expect((await as(a.claims, 'update users set full_name = $1 where clerk_id = $2', ['Hacked', b.clerkId])).rowCount).toBe(0);
      expect((await as(a.claims, 'update users set full_name = $1 where id = $2', ['Hacked', b.id])).rowCount).toBe(0);
      for (const [what, text] of [
        ['credits', 'update users set credits = 1000000 where clerk_id = $1'],
        ['the subscription', "update users set subscription_status = 'active', subscription_plan = 'PROFESSIONAL' where clerk_id = $1"],
        ['the customer id', "update users set creem_customer_id = 'cust_ben' where clerk_id = $1"],
        ['the clerk id', "update users set clerk_id = 'user_taken' where clerk_id = $1"],
        ['the erasure mark', 'update users set erased_at = null where clerk_id = $1'],
        ['the verified address', "update users set verified_email = 'ben@example.com' where clerk_id = $1"],
        [
          'the verified address with the allowed columns',
          "update users set email = 'ben@example.com', full_name = 'Ben', updated_at = now(), verified_email = 'ben@example.com' where clerk_id = $1",
        ],
      ]) {
        await expect(as(a.claims, text, [a.clerkId]), what).rejects.toMatchObject(DENIED);
      }
      await expect(as(a.claims, 'delete from users where clerk_id = $1', [a.clerkId])).rejects.toMatchObject(DENIED);
      const {
        rows: [row],
      } = await db.owner.query('select credits, subscription_plan, full_name from users where id = $1', [b.id]);
      expect(row).toEqual({ credits: 100, subscription_plan: 'BASIC', full_name: 'ben' });
    });

    it('keeps the verified address the server’s: a browser may copy anyone’s address into email, never into verified_email', async () => {
      await db.owner.query('update users set verified_email = $1 where id = $2', ['ana@example.com', a.id]);
      // Ana's browser writes Ben's address into her own row's display copy: allowed (product §7), and harmless.
      const own = await as(a.claims, 'update users set email = $1 where clerk_id = $2 returning email, verified_email', [
        'ben@example.com',
        a.clerkId,
      ]);
      expect(own.rows).toEqual([{ email: 'ben@example.com', verified_email: 'ana@example.com' }]);
      // Any statement naming verified_email is refused as a whole, also through PostgREST's upsert shape.
      await expect(
        as(a.claims, 'update users set verified_email = $1 where clerk_id = $2', ['ben@example.com', a.clerkId]),
      ).rejects.toMatchObject(DENIED);
      await expect(
        as(
          a.claims,
          'insert into users (clerk_id, email, full_name, credits) values ($1, $2, null, 0) on conflict (clerk_id) do update set verified_email = excluded.email',
          [a.clerkId, 'ben@example.com'],
        ),
      ).rejects.toMatchObject(DENIED);
      const {
        rows: [row],
      } = await db.owner.query('select email, verified_email from users where id = $1', [a.id]);
      expect(row).toEqual({ email: 'ben@example.com', verified_email: 'ana@example.com' });
      // Reading one's own row shows one's own verified address; another's is invisible.
      expect((await as(a.claims, 'select verified_email from users where id = $1', [b.id])).rows).toEqual([]);
      const { rows: privileges } = await db.owner.query(
        `select has_column_privilege('authenticated', 'public.users', 'verified_email', 'update') as upd, has_column_privilege('authenticated', 'public.users', 'verified_email', 'insert') as ins,
                has_column_privilege('anon', 'public.users', 'verified_email', 'select') as anon_read`,
      );
      expect(privileges[0]).toEqual({ upd: false, ins: false, anon_read: false });
      await db.owner.query('update users set email = $1 where id = $2', ['ana.new@example.com', a.id]);
    });

    it('hides an erased account from its own last token, which can neither change nor re-create it', async () => {
      const gone = await seed('gone');
      await db.owner.query('update users set erased_at = now(), email = null, full_name = null where id = $1', [gone.id]);
      expect((await as(gone.claims, 'select id from users where clerk_id = $1', [gone.clerkId])).rows).toEqual([]);
      expect((await as(gone.claims, 'update users set email = $1 where clerk_id = $2', ['back@example.com', gone.clerkId])).rowCount).toBe(
        0,
      );
      const resurrect = await as(
        gone.claims,
        'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 0) on conflict (clerk_id) do nothing returning id',
        [gone.clerkId, 'back@example.com', 'Back'],
      );
      expect(resurrect.rows).toEqual([]);
      await expect(
        as(gone.claims, 'insert into users (clerk_id, email, full_name, credits) values ($1, $2, $3, 0)', [
          gone.clerkId,
          'back@example.com',
          'Back',
        ]),
      ).rejects.toMatchObject({ code: '23505' });
      expect((await as(gone.claims, 'select credits from user_public_meta')).rows).toEqual([]);
      const { rows } = await db.owner.query('select email, erased_at from users where clerk_id = $1', [gone.clerkId]);
      expect(rows).toEqual([{ email: null, erased_at: expect.any(Date) }]);
    });
  });

  describe('user_public_meta and lora_trainings', () => {
    it('reads one’s own balance only, and can write it not at all', async () => {
      expect((await as(a.claims, 'select credits from user_public_meta where user_id = $1', [a.id])).rows).toEqual([{ credits: 100 }]);
      expect((await as(a.claims, 'select credits from user_public_meta where user_id = $1', [b.id])).rows).toEqual([]);
      expect((await as(a.claims, 'select user_id from user_public_meta')).rows).toEqual([{ user_id: a.id }]);
      await expect(as(a.claims, 'update user_public_meta set credits = 99999 where user_id = $1', [a.id])).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'insert into user_public_meta (user_id, credits) values ($1, 5)', [randomUUID()])).rejects.toMatchObject(
        DENIED,
      );
      await expect(as(a.claims, 'delete from user_public_meta where user_id = $1', [a.id])).rejects.toMatchObject(DENIED);
    });

    it('lists one’s own characters and trainings, resolves only one’s own LoRA, and creates none', async () => {
      const usable = await as(
        a.claims,
        "select id, character_name, trigger_word, lora_file_url from lora_trainings where user_id = $1 and status = 'COMPLETED' and lora_file_url is not null order by created_at desc",
        [a.id],
      );
      expect(usable.rows.map((r) => r.id)).toEqual([a.trainings.completed]);
      expect((await as(a.claims, "select id from lora_trainings where status = 'COMPLETED'")).rows.map((r) => r.id)).toEqual([
        a.trainings.completed,
      ]);
      expect((await as(a.claims, 'select id from lora_trainings where lora_file_url = $1', [a.trainings.loraUrl])).rows).toEqual([
        { id: a.trainings.completed },
      ]);
      expect((await as(a.claims, 'select id from lora_trainings where lora_file_url = $1', [b.trainings.loraUrl])).rows).toEqual([]);
      expect((await as(a.claims, 'select character_name from lora_trainings where id = $1', [b.trainings.completed])).rows).toEqual([]);
      const list = await as(
        a.claims,
        'select id, character_name, trigger_word, status, created_at, lora_file_url, request_id, result, error from lora_trainings where user_id = $1 order by created_at desc',
        [a.id],
      );
      expect(list.rows.map((r) => r.id)).toEqual([a.trainings.inProgress, a.trainings.completed]);
      // Submitting is the server's (it charges 500 credits in the same step); so is every state change.
      await expect(
        as(
          a.claims,
          "insert into lora_trainings (user_id, request_id, character_name, trigger_word, gender, hair_color, status, upload_url) values ($1, $2, 'Free', null, 'other', 'other', 'IN_PROGRESS', '/x') returning *",
          [a.id, randomUUID()],
        ),
      ).rejects.toMatchObject(DENIED);
      await expect(
        as(a.claims, "update lora_trainings set status = 'COMPLETED', lora_file_url = $1 where id = $2", [
          b.trainings.loraUrl,
          a.trainings.inProgress,
        ]),
      ).rejects.toMatchObject(DENIED);
    });
  });

  describe('generations', () => {
    it('lists one’s own ACTIVE generations newest first with an exact count, joined with the character', async () => {
      const page = await as(
        a.claims,
        `select g.id, g.prompt, g.status, g.is_favorite, t.character_name, count(*) over () as total
           from generations g left join lora_trainings t on t.id = g.lora_id
          where g.user_id = $1 and g.status = 'ACTIVE' order by g.created_at desc offset 0 limit 40`,
        [a.id],
      );
      expect(page.rows.map((r) => r.id)).toEqual([...a.generations.active].reverse());
      expect(page.rows.map((r) => Number(r.total))).toEqual([2, 2]);
      expect(page.rows.find((r) => r.id === a.generations.active[0])?.character_name).toBe('ana character');
      // Asking for someone else's shows nothing; asking for everything shows only one's own.
      expect((await as(a.claims, 'select id from generations where user_id = $1', [b.id])).rows).toEqual([]);
      expect((await as(a.claims, 'select count(*)::int as n from generations')).rows).toEqual([{ n: 3 }]);
    });

    it('toggles one’s own favourites and soft-deletes; never un-deletes, never touches another’s', async () => {
      const [first, second] = a.generations.active;
      expect((await as(a.claims, 'update generations set is_favorite = true where id = $1 returning is_favorite', [first])).rows).toEqual([
        { is_favorite: true },
      ]);
      expect((await as(a.claims, 'update generations set is_favorite = true where id = $1', [b.generations.active[0]])).rowCount).toBe(0);
      expect((await as(a.claims, "update generations set status = 'DELETED' where id = $1", [b.generations.active[1]])).rowCount).toBe(0);
      expect((await as(a.claims, "update generations set status = 'DELETED' where id = $1 returning status", [second])).rows).toEqual([
        { status: 'DELETED' },
      ]);
      expect((await as(a.claims, "update generations set status = 'ACTIVE' where id = $1", [second])).rowCount).toBe(0);
      expect((await as(a.claims, "update generations set status = 'ACTIVE' where id = $1", [a.generations.deleted])).rowCount).toBe(0);
      expect((await as(a.claims, 'update generations set is_favorite = true where id = $1', [a.generations.deleted])).rowCount).toBe(0);
      await expect(as(a.claims, "update generations set status = 'FEATURED' where id = $1", [first])).rejects.toMatchObject(DENIED);
      for (const [what, text] of [
        ['the prompt', "update generations set prompt = 'x' where id = $1"],
        ['the image', "update generations set image_url = '/media/generations/other.jpeg' where id = $1"],
        ['the owner', `update generations set user_id = '${b.id}' where id = $1`],
        ['a hard delete', 'delete from generations where id = $1'],
      ]) {
        await expect(as(a.claims, text, [first]), what).rejects.toMatchObject(DENIED);
      }
      const { rows } = await db.owner.query('select id, status, is_favorite from generations where user_id = $1 order by created_at', [
        b.id,
      ]);
      expect(rows.filter((r) => r.status === 'ACTIVE').every((r) => !r.is_favorite)).toBe(true);
      expect(rows.filter((r) => r.status === 'ACTIVE')).toHaveLength(2);
      await db.owner.query("update generations set status = 'ACTIVE' where id = $1", [second]);
    });

    it('cannot create a generation (the server charges for every one)', async () => {
      await expect(
        as(
          a.claims,
          "insert into generations (user_id, prompt, width, height, image_url) values ($1, 'free image', 512, 512, '/media/x.jpeg')",
          [a.id],
        ),
      ).rejects.toMatchObject(DENIED);
    });
  });

  describe('explore_gallery', () => {
    it('is readable by every signed-in person with filters, featured first then newest, counts and filter options', async () => {
      const page = await as(
        b.claims,
        `select id, is_featured, count(*) over () as total from explore_gallery order by is_featured desc, created_at desc offset 0 limit 40`,
      );
      expect(page.rows).toHaveLength(15);
      expect(page.rows.slice(0, 3).every((r) => r.is_featured)).toBe(true);
      const filtered = await as(
        a.claims,
        `select count(*)::int as n from explore_gallery where gender = $1 and hair_color = $2 and style = $3 and ethnicity = $4`,
        ['female', 'black', 'cinematic', 'asian'],
      );
      expect(filtered.rows[0].n).toBeGreaterThan(0);
      expect((await as(a.claims, 'select distinct gender from explore_gallery where gender is not null order by gender')).rows).toEqual([
        { gender: 'female' },
        { gender: 'male' },
      ]);
      expect(
        (await as(a.claims, 'select id from explore_gallery where is_featured = true order by created_at desc limit 12')).rows,
      ).toHaveLength(3);
    });

    it('gives visitors and signed-in people the four filter lists from explore_filter_options, and no way to write them', async () => {
      const expected = {
        gender: ['female', 'male'],
        hair_color: ['black', 'brown'],
        ethnicity: ['asian'],
        style: ['cinematic', 'portrait'],
      };
      for (const claims of [a.claims, ANON]) {
        const { rows } = await as(claims, 'select gender, hair_color, ethnicity, style from explore_filter_options');
        expect(rows, String(claims.role)).toEqual([expected]);
        // Refused for want of a grant (42501) or because the view cannot be written at all (55000).
        for (const write of [
          "insert into explore_filter_options (gender) values ('{x}')",
          "update explore_filter_options set gender = '{x}'",
          'delete from explore_filter_options',
        ]) {
          await expect(as(claims, write), write).rejects.toMatchObject({ code: expect.stringMatching(/^(42501|55000)$/) });
        }
      }
      // Not even its owner can write through it: no write path at all.
      await expect(db.owner.query("update explore_filter_options set gender = '{x}'")).rejects.toMatchObject({ code: '55000' });
      // Visitors see the lists, not the gallery itself.
      await expect(as(ANON, 'select id from explore_gallery limit 1')).rejects.toMatchObject(DENIED);
    });

    it('cannot be changed by anyone but the server', async () => {
      await expect(
        as(a.claims, "insert into explore_gallery (image_url, prompt, width, height) values ('/x', 'mine', 1, 1)"),
      ).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'update explore_gallery set is_featured = true')).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'delete from explore_gallery')).rejects.toMatchObject(DENIED);
    });
  });

  describe('server-only data and anon', () => {
    it('keeps the ledger, payments, subscriptions, sessions, jobs, uploads and rate limits from every client', async () => {
      for (const claims of [a.claims, ANON]) {
        for (const table of SERVER_ONLY) {
          await expect(as(claims, `select * from ${table} limit 1`), `${claims.role} reads ${table}`).rejects.toMatchObject(DENIED);
          await expect(as(claims, `delete from ${table}`), `${claims.role} deletes ${table}`).rejects.toMatchObject(DENIED);
        }
      }
      await expect(
        as(
          a.claims,
          "insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after) values ($1, 5000, 'grant', 'free', 'free', 5100)",
          [a.id],
        ),
      ).rejects.toMatchObject(DENIED);
      await expect(
        as(a.claims, "insert into payment_events (provider, event_id, event_type) values ('creem', 'evt_forged', 'subscription.paid')"),
      ).rejects.toMatchObject(DENIED);
    });

    it('grants clients nothing on any table but the five the SPA reads and the filter-options view (whatever tables later branches add)', async () => {
      const { rows } = await db.owner.query(
        `select c.relname as table, has_any_column_privilege('anon', c.oid, 'select, insert, update, references') or has_table_privilege('anon', c.oid, 'select, insert, update, delete, truncate, references, trigger') as anon,
                has_any_column_privilege('authenticated', c.oid, 'select, insert, update, references') or has_table_privilege('authenticated', c.oid, 'select, insert, update, delete, truncate, references, trigger') as authenticated
           from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p')`,
      );
      // The photo-pack catalogue and the explore filter options are public (read-only); everything else is closed to anon.
      expect(
        rows
          .filter((r) => r.anon)
          .map((r) => r.table)
          .sort(),
      ).toEqual(['explore_filter_options', 'photo_pack_prompts', 'photo_packs']);
      expect(
        rows
          .filter((r) => r.authenticated)
          .map((r) => r.table)
          .sort(),
      ).toEqual([
        'credit_history',
        'credit_ledger',
        'explore_filter_options',
        'explore_gallery',
        // Of one's own jobs, the id and the image made (the credits history's links): supabase/migrations/…_credit_history_security.sql.
        'generation_jobs',
        'generations',
        'lora_trainings',
        'photo_pack_prompts',
        'photo_packs',
        'photo_shoots',
        'shoot_photo_views',
        'shoot_photos',
        // Teams, under policies keyed on membership (tests/server/supabase-rls-teams.test.ts).
        'team_credit_ledger',
        'team_invites',
        'team_members',
        'teams',
        'user_public_meta',
        'users',
      ]);
      expect(rows.length).toBeGreaterThanOrEqual(ALL_TABLES.length);
    });

    it('shows anon nothing at all', async () => {
      for (const table of ALL_TABLES) await expect(as(ANON, `select count(*) from ${table}`), table).rejects.toMatchObject(DENIED);
      await expect(as(ANON, "insert into users (clerk_id, credits) values ('user_anon', 0)")).rejects.toMatchObject(DENIED);
      // A token without the role claim runs as anon (PostgREST's rule): the misconfiguration shows as nothing.
      const { role: _role, ...noRole } = a.claims;
      await expect(as(noRole, 'select id from users')).rejects.toMatchObject(DENIED);
    });

    it('gives clients no function to call: nothing that could move credits', async () => {
      const { rows } = await db.owner.query(
        `select p.oid::regprocedure::text as fn, has_function_privilege('authenticated', p.oid, 'execute') as authenticated, has_function_privilege('anon', p.oid, 'execute') as anon
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'private')`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row, row.fn).toMatchObject({ authenticated: false, anon: false });
      await expect(as(a.claims, 'select private.users_create_public_meta()')).rejects.toMatchObject(DENIED);
    });

    it('starts tables and functions that later migrations add closed to clients', async () => {
      await db.owner.query('create table public.later_feature (id int primary key, secret text)');
      await db.owner.query('create function public.later_grant(amount int) returns int language sql as $$ select amount $$');
      const { rows } = await db.owner.query(
        `select has_table_privilege('authenticated', 'public.later_feature', 'select') as t_auth, has_table_privilege('anon', 'public.later_feature', 'insert') as t_anon,
                has_function_privilege('authenticated', 'public.later_grant(int)', 'execute') as f_auth, has_function_privilege('anon', 'public.later_grant(int)', 'execute') as f_anon`,
      );
      expect(rows[0]).toEqual({ t_auth: false, t_anon: false, f_auth: false, f_anon: false });
      await expect(as(a.claims, 'select * from later_feature')).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'select later_grant(5)')).rejects.toMatchObject(DENIED);
      await db.owner.query('drop table public.later_feature; drop function public.later_grant(int)');
    });
  });

  describe('credit_ledger (issue 50, the credits page)', () => {
    it('lists one’s own ledger lines with their kind, never another’s, never the idempotency key, and writes none', async () => {
      const mine = await as(a.claims, 'select user_id, delta, entry, balance_after from credit_ledger order by created_at desc, id desc');
      expect(mine.rows).toEqual([{ user_id: a.id, delta: 100, entry: 'adjustment', balance_after: 100 }]);
      expect((await as(b.claims, 'select user_id from credit_ledger')).rows).toEqual([{ user_id: b.id }]);
      expect((await as(a.claims, 'select id from credit_ledger where user_id = $1', [b.id])).rows).toEqual([]);
      await expect(as(a.claims, 'select idempotency_key from credit_ledger')).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'update credit_ledger set delta = 5000')).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'delete from credit_ledger')).rejects.toMatchObject(DENIED);
    });

    it('lists one’s own history with its links from credit_history, never another’s lines, links or keys', async () => {
      const q = (text: string, values: unknown[]) => db.owner.query(text, values);
      // A paid generation of each person (its job made their first image), and a promo line of Ana's.
      const jobOf = async (p: Person) =>
        (
          await q(
            `insert into generation_jobs (user_id, input, provider, status, generation_id) values ($1, '{"prompt":"secret"}', 'builtin', 'SUCCEEDED', $2) returning id`,
            [p.id, p.generations.active[0]],
          )
        ).rows[0].id as string;
      const line = (p: Person, delta: number, key: string, minutesAgo: number) =>
        q(
          `insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after, created_at) values ($1, $2, 'debit', 'Image generation', $3, 0, now() - make_interval(mins => $4))`,
          [p.id, delta, key, minutesAgo],
        );
      const anaJob = await jobOf(a);
      const benJob = await jobOf(b);
      await line(a, -10, `generation:${anaJob}`, 3);
      await line(a, 25, `promo:RLSSECRET:${a.id}`, 2);
      // A line of Ana's naming Ben's job (no writer makes one; if one did, Ben's image would still not show).
      await line(a, 10, `refund:generation:${benJob}`, 1);
      await line(b, -10, `generation:${benJob}`, 1);

      const columns = 'user_id, entry, delta, link_type, link_id';
      const mine = await as(
        a.claims,
        `select ${columns} from credit_history where entry <> 'adjustment' order by created_at desc, id desc`,
      );
      expect(mine.rows).toEqual([
        { user_id: a.id, entry: 'refund', delta: 10, link_type: 'image', link_id: null },
        { user_id: a.id, entry: 'promo', delta: 25, link_type: null, link_id: null },
        { user_id: a.id, entry: 'generation', delta: -10, link_type: 'image', link_id: a.generations.active[0] },
      ]);
      expect((await as(b.claims, `select ${columns} from credit_history where entry = 'generation'`)).rows).toEqual([
        { user_id: b.id, entry: 'generation', delta: -10, link_type: 'image', link_id: b.generations.active[0] },
      ]);
      expect((await as(a.claims, 'select id from credit_history where user_id = $1', [b.id])).rows).toEqual([]);
      // No key in the view, none readable from the ledger; of a job, only its id and image, and only one's own.
      const everything = await as(a.claims, 'select * from credit_history');
      expect(everything.fields.map((f) => f.name)).not.toContain('idempotency_key');
      expect(JSON.stringify(everything.rows)).not.toContain('RLSSECRET');
      await expect(as(a.claims, 'select idempotency_key from credit_ledger')).rejects.toMatchObject(DENIED);
      await expect(as(a.claims, 'select input from generation_jobs')).rejects.toMatchObject(DENIED);
      expect((await as(a.claims, 'select id, generation_id from generation_jobs where id = any($1)', [[anaJob, benJob]])).rows).toEqual([
        { id: anaJob, generation_id: a.generations.active[0] },
      ]);
      await expect(as(a.claims, 'update generation_jobs set generation_id = null')).rejects.toMatchObject(DENIED);
      await expect(as(ANON, 'select id from credit_history')).rejects.toMatchObject(DENIED);
      await expect(as(ANON, 'select id from generation_jobs')).rejects.toMatchObject(DENIED);
      // The spend sums stay the server's.
      await expect(as(a.claims, 'select * from credit_ledger_days')).rejects.toMatchObject(DENIED);
    });
  });

  describe('photo packs and shoots', () => {
    it('shows the catalogue to anyone, read-only and without hidden packs; shoots and photos to their owner only', async () => {
      await db.owner.query(
        `insert into photo_packs (id, name, description, category, aspect_ratio, width, height) values ('rls-shown', 'Shown', 'd', 'Travel', '1:1', 1024, 1024), ('rls-hidden', 'Hidden', 'd', 'Travel', '1:1', 1024, 1024) on conflict do nothing`,
      );
      await db.owner.query(`update photo_packs set hidden = true where id = 'rls-hidden'`);
      await db.owner.query(
        `insert into photo_pack_prompts (pack_id, position, template) values ('rls-shown', 0, 'photo of {subject}'), ('rls-hidden', 0, 'photo of {subject}') on conflict do nothing`,
      );
      for (const who of [ANON, a.claims]) {
        const packs = await as(who, `select id from photo_packs where id like 'rls-%'`);
        expect(packs.rows.map((r) => r.id)).toEqual(['rls-shown']);
        const prompts = await as(who, `select pack_id from photo_pack_prompts where pack_id like 'rls-%'`);
        expect(prompts.rows.map((r) => r.pack_id)).toEqual(['rls-shown']);
        await expect(as(who, `update photo_packs set hidden = false where id = 'rls-hidden'`)).rejects.toMatchObject(DENIED);
      }
      const {
        rows: [shoot],
      } = await db.owner.query(
        `insert into photo_shoots (user_id, pack_id, pack_name, character_name, photo_count, cost) values ($1, 'rls-shown', 'Shown', 'Ana', 1, 10) returning id`,
        [a.id],
      );
      await db.owner.query(
        `insert into shoot_photos (shoot_id, user_id, position, prompt, width, height, seed) values ($1, $2, 0, 'p', 1024, 1024, 1)`,
        [shoot.id, a.id],
      );
      expect((await as(a.claims, 'select id from photo_shoots where id = $1', [shoot.id])).rows).toHaveLength(1);
      expect((await as(a.claims, 'select id from shoot_photos where shoot_id = $1', [shoot.id])).rows).toHaveLength(1);
      expect((await as(b.claims, 'select id from photo_shoots where id = $1', [shoot.id])).rows).toHaveLength(0);
      expect((await as(b.claims, 'select id from shoot_photos where shoot_id = $1', [shoot.id])).rows).toHaveLength(0);
      await expect(as(ANON, 'select id from photo_shoots')).rejects.toMatchObject(DENIED);
      // Starting, cancelling and ending shoots is the server's: no client writes.
      await expect(as(a.claims, `update photo_shoots set status = 'CANCELLED' where id = $1`, [shoot.id])).rejects.toMatchObject(DENIED);
      await expect(
        as(
          a.claims,
          `insert into photo_shoots (user_id, pack_id, pack_name, character_name, photo_count, cost) values ($1, 'rls-shown', 'x', 'x', 1, 0)`,
          [a.id],
        ),
      ).rejects.toMatchObject(DENIED);
    });
  });

  describe('the platform around it', () => {
    it('switches row-level security on for every table and publishes balances, trainings and generations to Realtime', async () => {
      const { rows } = await db.owner.query(
        "select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r' and not c.relrowsecurity",
      );
      expect(rows).toEqual([]);
      const published = await db.owner.query(
        "select tablename from pg_publication_tables where pubname = 'supabase_realtime' order by tablename",
      );
      expect(published.rows.map((r) => r.tablename)).toEqual([
        'generations',
        'lora_trainings',
        'photo_shoots',
        'shoot_photos',
        'team_members',
        'user_public_meta',
      ]);
    });

    it('creates the cluster-wide roles once however many test files ask at the same moment', async () => {
      await Promise.all(Array.from({ length: 6 }, () => ensureSupabaseRoles()));
      const { rows } = await db.owner.query(
        "select rolname, rolbypassrls from pg_roles where rolname in ('anon', 'authenticated', 'service_role') order by rolname",
      );
      expect(rows).toEqual([
        { rolname: 'anon', rolbypassrls: false },
        { rolname: 'authenticated', rolbypassrls: false },
        { rolname: 'service_role', rolbypassrls: true },
      ]);
    });

    it('defines auth.jwt(), auth.role() and auth.uid() as Supabase does, and auth.uid() cannot read a Clerk id', async () => {
      const { rows } = await as(a.claims, "select auth.jwt() ->> 'sub' as sub, auth.role() as role");
      expect(rows).toEqual([{ sub: a.clerkId, role: 'authenticated' }]);
      await expect(as(a.claims, 'select auth.uid()')).rejects.toMatchObject({ code: '22P02' });
    });

    it('evaluates the subject once per statement and finds rows through the indexes the policies compare', async () => {
      const plan = await db.withClaims(a.claims, async (client) => {
        await client.query('set local enable_seqscan = off');
        const { rows } = await client.query(
          "explain select id from generations where user_id = $1 and status = 'ACTIVE' order by created_at desc limit 40",
          [a.id],
        );
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toMatch(/InitPlan/);
      expect(plan).toMatch(/Index (Only )?Scan using (generations_user_active_created_idx|users_clerk_id_key)/);
    });

    it('refuses to start on a Supabase project before the push, and applies later migrations in either order', async () => {
      const logger = createLogger('silent');
      // Pushed first (this database), then the server starts: Drizzle finds every migration recorded.
      const afterPush = await openDatabase({ databaseUrl: db.url, dataDir: '/nonexistent', logger });
      await afterPush.close();
      const { rows: recorded } = await db.owner.query('select count(*)::int as n from drizzle.__drizzle_migrations');
      expect(recorded[0].n).toBe(buildSupabaseMigrations().size);

      const fresh = await createSupabaseDatabase({ migrations: false });
      try {
        // The server first on a new project would create tables with Supabase's default grants: it refuses, and
        // creates nothing.
        await expect(openDatabase({ databaseUrl: fresh.url, dataDir: '/nonexistent', logger })).rejects.toThrow(UnsecuredSupabaseError);
        const { rows: created } = await fresh.owner.query(
          "select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'",
        );
        expect(created[0].n).toBe(0);

        // An upgrade: the push up to the previous version, the server applies the newest migration first, then
        // the newest push sees Drizzle's record and skips its DDL.
        // (Hand-written files after the newest generated one are pushed with it, after it.)
        const files = supabaseMigrationFiles();
        const generated = buildSupabaseMigrations();
        const newestIndex = files.findLastIndex((f) => generated.has(f.file));
        for (const { sql } of files.slice(0, newestIndex)) await fresh.owner.query(sql);
        const server = await openDatabase({ databaseUrl: fresh.url, dataDir: '/nonexistent', logger });
        await server.close();
        for (const { sql } of files.slice(newestIndex)) await fresh.owner.query(sql);
        const { rows } = await fresh.owner.query(
          "select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r' and not c.relrowsecurity",
        );
        expect(rows[0].n).toBe(0);
        const newcomer = `user_order_${randomUUID().slice(0, 8)}`;
        const inserted = await fresh.asClaims(
          clerkClaims(newcomer),
          'insert into users (clerk_id, email, full_name, credits) values ($1, null, null, 0) returning id',
          [newcomer],
        );
        expect(inserted.rows).toHaveLength(1);
      } finally {
        await fresh.drop();
      }
    });
  });
});
