import { randomUUID } from 'node:crypto';
import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamView } from '@common/teams.ts';
import { mailOutbox, photoPacks, teamCreditLedger, teamInvites, teamMembers, teams } from '../../server/db/schema.ts';
import { grantTeam } from '../../server/services/team-credits.service.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

type Need = 'member' | 'lead' | 'owner';
type Caller = 'owner' | 'manager' | 'member' | 'outsider';

/**
 * The access sweep: every team route, called by each role of team A and by the owner of team B, with A's ids.
 * Whoever may not do it is refused — 404 for someone outside the team (it does not exist for them), 403 for a role
 * too low — and nothing in any team table or the outbox changes.
 */
describe.each(testDatabases())('team access sweep (%s)', (database) => {
  let ts: TestServer;
  const clients = {} as Record<Caller, TestClient>;
  const ids = {} as Record<Caller | 'target', string>;
  let teamA: TeamView;
  let teamB: TeamView;
  let inviteA: string;
  let inviteB: string;

  const send = (client: TestClient, method: string, path: string, body?: unknown) =>
    client.fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    ts = await startTestServer({ database });
    const people = await Promise.all(['owner', 'manager', 'member', 'outsider', 'target'].map(() => ts.signUp()));
    (['owner', 'manager', 'member', 'outsider'] as const).forEach((k, i) => {
      clients[k] = people[i].client;
      ids[k] = people[i].userId;
    });
    ids.target = people[4].userId;
    teamA = await (await clients.owner.post('/api/teams', { name: 'Team A' })).json();
    teamB = await (await clients.outsider.post('/api/teams', { name: 'Team B' })).json();
    await grantTeam(ts.rt.db, ts.rt.events, teamA.id, ids.owner, 500, 'test purchase', `test:${randomUUID()}`);
    // Everyone joins A through their personal links; the manager is made one by the owner.
    const joiners = [people[1], people[2], people[4]];
    await clients.owner.post(`/api/teams/${teamA.id}/invites`, { text: joiners.map((p) => p.email).join('\n'), send: true });
    for (const p of joiners) {
      const token = decodeURIComponent((await ts.mailedLink(p.email, '/join/')).split('/join/')[1]);
      expect((await p.client.post(`/api/team-invites/${token}/accept`)).status).toBe(200);
    }
    expect((await send(clients.owner, 'PUT', `/api/teams/${teamA.id}/members/${ids.manager}/role`, { role: 'manager' })).status).toBe(200);
    await clients.owner.post(`/api/teams/${teamA.id}/invites`, { text: 'pending-a@example.com', send: true });
    await clients.outsider.post(`/api/teams/${teamB.id}/invites`, { text: 'pending-b@example.com', send: true });
    const invites = await ts.rt.db.select().from(teamInvites);
    inviteA = invites.find((i) => i.email === 'pending-a@example.com')!.id;
    inviteB = invites.find((i) => i.email === 'pending-b@example.com')!.id;
  }, 240_000);
  afterAll(() => ts?.stop());

  /** Every row of the team tables, the team packs and the outbox's count: what no refusal may change. */
  async function snapshot(): Promise<string> {
    const db = ts.rt.db;
    const [mail] = await db.select({ n: sql<number>`count(*)::int` }).from(mailOutbox);
    return JSON.stringify([
      await db.select().from(teams).orderBy(asc(teams.id)),
      await db.select().from(teamMembers).orderBy(asc(teamMembers.teamId), asc(teamMembers.userId)),
      await db.select().from(teamInvites).orderBy(asc(teamInvites.id)),
      await db.select().from(teamCreditLedger).orderBy(asc(teamCreditLedger.id)),
      await db
        .select()
        .from(photoPacks)
        .where(sql`${photoPacks.source} = 'team'`),
      mail.n,
    ]);
  }

  const routes = (): { method: string; path: string; body?: unknown; need: Need }[] => {
    const t = `/api/teams/${teamA.id}`;
    const look = { pack_id: 'linkedin-profile', aspect_ratio: '1:1', due_date: '2026-12-31' };
    return [
      { method: 'GET', path: t, need: 'member' },
      { method: 'GET', path: `${t}/me`, need: 'member' },
      { method: 'PUT', path: `${t}/submission`, body: { generation_ids: [randomUUID()] }, need: 'member' },
      { method: 'PATCH', path: t, body: { name: 'Taken over', domain: 'evil.test' }, need: 'owner' },
      { method: 'PUT', path: `${t}/look`, body: look, need: 'owner' },
      { method: 'PUT', path: `${t}/members/${ids.target}/role`, body: { role: 'manager' }, need: 'owner' },
      { method: 'GET', path: `${t}/credits`, need: 'lead' },
      { method: 'GET', path: `${t}/members`, need: 'lead' },
      { method: 'GET', path: `${t}/members?status=joined`, need: 'lead' },
      { method: 'DELETE', path: `${t}/members/${ids.target}`, need: 'lead' },
      { method: 'POST', path: `${t}/members/${ids.target}/approve`, need: 'lead' },
      { method: 'POST', path: `${t}/members/${ids.target}/ask-again`, need: 'lead' },
      { method: 'POST', path: `${t}/remind`, need: 'lead' },
      { method: 'GET', path: `${t}/archive`, need: 'lead' },
      { method: 'GET', path: `${t}/invites`, need: 'lead' },
      { method: 'POST', path: `${t}/invites`, body: { text: 'someone@example.com', send: true }, need: 'lead' },
      { method: 'POST', path: `${t}/invites/${inviteA}/resend`, need: 'lead' },
      { method: 'POST', path: `${t}/invites/${inviteA}/revoke`, need: 'lead' },
      { method: 'POST', path: `${t}/open-links`, body: { usage_limit: 5 }, need: 'lead' },
    ];
  };

  const allowed = (caller: Caller, need: Need) =>
    caller !== 'outsider' && (need === 'member' || (need === 'lead' && caller !== 'member') || (need === 'owner' && caller === 'owner'));

  it('refuses every team route to every role that may not use it (404 outside the team, 403 inside), changing nothing', async () => {
    const refusals: string[] = [];
    for (const route of routes()) {
      for (const caller of ['manager', 'member', 'outsider'] as const) {
        if (allowed(caller, route.need)) continue;
        const before = await snapshot();
        const res = await send(clients[caller], route.method, route.path, route.body);
        const want = caller === 'outsider' ? 404 : 403;
        if (res.status !== want) refusals.push(`${caller} ${route.method} ${route.path}: ${res.status} ${await res.text()}`);
        else await res.body?.cancel();
        expect(await snapshot(), `${caller} ${route.method} ${route.path} changed something`).toBe(before);
      }
    }
    expect(refusals).toEqual([]);
  }, 180_000);

  it('nobody reaches another team through their own: ids of team B under team A, and the reverse, are not found', async () => {
    const before = await snapshot();
    const cross = [
      [clients.owner, 'POST', `/api/teams/${teamA.id}/invites/${inviteB}/revoke`],
      [clients.owner, 'POST', `/api/teams/${teamA.id}/invites/${inviteB}/resend`],
      [clients.outsider, 'POST', `/api/teams/${teamB.id}/invites/${inviteA}/revoke`],
      [clients.outsider, 'DELETE', `/api/teams/${teamB.id}/members/${ids.target}`],
      [clients.outsider, 'POST', `/api/teams/${teamB.id}/members/${ids.member}/approve`],
      [clients.owner, 'GET', `/api/teams/${teamB.id}/members`],
      [clients.owner, 'GET', `/api/teams/not-a-uuid`],
    ] as const;
    for (const [client, method, path] of cross) {
      const res = await send(client, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await snapshot()).toBe(before);
    // Signed out: 401 on every team route, nothing changed.
    for (const route of routes()) expect((await send(ts.client(), route.method, route.path, route.body)).status).toBe(401);
    expect(await snapshot()).toBe(before);
    // The lists show each person only their own teams, with the balance their team work is paid from (every
    // member sees it: it is the balance shown in the team's space, decision 025).
    const listed = async (c: TestClient) =>
      ((await (await c.get('/api/teams')).json()).items as TeamView[]).map((t) => [t.name, t.role, t.credits]);
    expect(await listed(clients.member)).toEqual([['Team A', 'member', 500]]);
    expect(await listed(clients.manager)).toEqual([['Team A', 'manager', 500]]);
    expect(await listed(clients.outsider)).toEqual([['Team B', 'owner', 0]]);
  }, 120_000);

  it('the allowed roles do get through (so the refusals above are about roles, not broken routes)', async () => {
    expect((await send(clients.member, 'GET', `/api/teams/${teamA.id}/me`)).status).toBe(200);
    expect((await send(clients.manager, 'GET', `/api/teams/${teamA.id}/members`)).status).toBe(200);
    expect((await send(clients.manager, 'POST', `/api/teams/${teamA.id}/invites/${inviteA}/revoke`)).status).toBe(200);
    expect(
      (
        await send(clients.owner, 'PUT', `/api/teams/${teamA.id}/look`, {
          pack_id: 'linkedin-profile',
          aspect_ratio: '1:1',
          due_date: null,
        })
      ).status,
    ).toBe(200);
  });
});
