/**
 * Row-level security of the team tables (supabase/migrations/20261128230000_teams_security.sql) on the run's real
 * PostgreSQL, queried the way PostgREST runs a signed-in person's query: members read their team and their own
 * row, leads every member's row, the invites and the ledger, and the team work of members; nobody reads another
 * team, a personal invite's token hash, or anyone's personal work; nobody writes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clerkClaims, createSupabaseDatabase, type Claims, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';

describe('Supabase row-level security of teams (postgres)', () => {
  let db: SupabaseTestDatabase;
  const people = {} as Record<'owner' | 'member' | 'other' | 'stranger', { id: string; claims: Claims }>;
  let teamA: string;
  let teamB: string;
  let teamShoot: string;
  let personalShoot: string;
  const as = (who: keyof typeof people, text: string, values?: unknown[]) => db.asClaims(people[who].claims, text, values);
  const q = (text: string, values: unknown[] = []) => db.owner.query(text, values);

  beforeAll(async () => {
    db = await createSupabaseDatabase();
    for (const name of ['owner', 'member', 'other', 'stranger'] as const) {
      const clerkId = `user_${name}_${randomUUID().slice(0, 8)}`;
      const { rows } = await q('insert into users (clerk_id, email, full_name) values ($1, $2, $3) returning id', [
        clerkId,
        `${name}@example.com`,
        name,
      ]);
      people[name] = { id: rows[0].id, claims: clerkClaims(clerkId) };
    }
    teamA = (await q(`insert into teams (name, owner_id, credits) values ('A', $1, 300) returning id`, [people.owner.id])).rows[0].id;
    teamB = (await q(`insert into teams (name, owner_id) values ('B', $1) returning id`, [people.stranger.id])).rows[0].id;
    for (const [team, user, role] of [
      [teamA, people.owner.id, 'owner'],
      [teamA, people.member.id, 'member'],
      [teamA, people.other.id, 'member'],
      [teamB, people.stranger.id, 'owner'],
    ])
      await q('insert into team_members (team_id, user_id, role) values ($1, $2, $3)', [team, user, role]);
    await q(`insert into team_invites (team_id, kind, token_hash, email) values ($1, 'personal', 'secret-hash', 'x@example.com')`, [teamA]);
    await q(
      `insert into team_credit_ledger (team_id, delta, kind, reason, idempotency_key, balance_after) values ($1, 300, 'grant', 'bought', $2, 300)`,
      [teamA, `k:${teamA}`],
    );
    await q(
      `insert into photo_packs (id, name, description, category, aspect_ratio, width, height) values ('p', 'P', 'd', 'c', '1:1', 1024, 1024) on conflict do nothing`,
    );
    const shoot = (team: string | null) =>
      q(
        `insert into photo_shoots (user_id, pack_id, pack_name, character_name, photo_count, cost, team_id) values ($1, 'p', 'P', 'M', 8, 80, $2) returning id`,
        [people.member.id, team],
      );
    teamShoot = (await shoot(teamA)).rows[0].id;
    personalShoot = (await shoot(null)).rows[0].id;
  }, 60_000);
  afterAll(() => db?.drop());

  it('a member reads their team and their own membership, nothing of other members, the invites or the ledger', async () => {
    expect((await as('member', 'select name from teams')).rows).toEqual([{ name: 'A' }]);
    expect((await as('member', 'select user_id from team_members')).rows).toEqual([{ user_id: people.member.id }]);
    expect((await as('member', 'select id from team_invites')).rows).toEqual([]);
    expect((await as('member', 'select id from team_credit_ledger')).rows).toEqual([]);
  });

  it('the owner reads every member, the invites (never a token hash) and the ledger, and the team work of members — not their personal work', async () => {
    expect((await as('owner', 'select user_id from team_members order by user_id')).rows.map((r) => r.user_id).sort()).toEqual(
      [people.owner.id, people.member.id, people.other.id].sort(),
    );
    expect((await as('owner', 'select email from team_invites')).rows).toEqual([{ email: 'x@example.com' }]);
    await expect(as('owner', 'select token_hash from team_invites')).rejects.toMatchObject({ code: '42501' });
    expect((await as('owner', 'select delta from team_credit_ledger')).rows).toEqual([{ delta: 300 }]);
    const shoots = (await as('owner', 'select id from photo_shoots')).rows.map((r) => r.id);
    expect(shoots).toContain(teamShoot);
    expect(shoots).not.toContain(personalShoot);
  });

  it('nobody sees another team, and nobody writes to a team table', async () => {
    expect((await as('stranger', 'select name from teams')).rows).toEqual([{ name: 'B' }]);
    expect((await as('stranger', 'select team_id from team_members where team_id = $1', [teamA])).rows).toEqual([]);
    expect((await as('stranger', 'select id from photo_shoots')).rows).toEqual([]);
    await expect(as('member', `update teams set credits = 999999 where id = $1`, [teamA])).rejects.toMatchObject({ code: '42501' });
    await expect(as('member', `update team_members set role = 'owner' where user_id = $1`, [people.member.id])).rejects.toMatchObject({
      code: '42501',
    });
    await expect(
      as('stranger', `insert into team_members (team_id, user_id, role) values ($1, $2, 'owner')`, [teamA, people.stranger.id]),
    ).rejects.toMatchObject({ code: '42501' });
    expect((await q('select credits from teams where id = $1', [teamA])).rows).toEqual([{ credits: 300 }]);
  });
});
