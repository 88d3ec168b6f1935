import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITE_ROW_LIMIT, TEAM_TEXTS, type InviteReportRow, type TeamMemberView, type TeamView } from '@common/teams.ts';
import type { ShootView } from '@common/photo-shoots.ts';
import {
  creditLedger,
  generations,
  loraTrainings,
  mailOutbox,
  photoShoots,
  teamCreditLedger,
  teamInvites,
  teams,
} from '../../server/db/schema.ts';
import { teamCreditsRepository } from '../../server/repositories/team-credits.repository.ts';
import { debitTeam, grantTeam, refundTeam } from '../../server/services/team-credits.service.ts';
import { finishTraining } from '../../server/services/trainings.service.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { FAST_TRAINING, trainingArchive, trainingEnded, trainingPayload, uploadArchive } from '../helpers/training.ts';
import { waitFor } from '../helpers/wait.ts';

type Person = { client: TestClient; userId: string; email: string };

describe.each(testDatabases())('teams (%s)', (database) => {
  let ts: TestServer;

  beforeAll(async () => {
    // A busy machine may take long to check photos: patient, as the other suites that train are.
    ts = await startTestServer({ database, env: { ...FAST_TRAINING, INFERENCE_CONCURRENCY: '2', VISION_TIMEOUT_SECONDS: '300' } });
  });
  afterAll(() => ts?.stop());

  const json = async <T>(res: Response, status = 200): Promise<T> => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const send = (client: TestClient, method: string, path: string, body?: unknown) =>
    client.fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function newTeam(owner: Person, name = 'Acme'): Promise<TeamView> {
    return json<TeamView>(await owner.client.post('/api/teams', { name }), 201);
  }
  const teamBalance = async (teamId: string): Promise<number> => {
    const balance = (await teamCreditsRepository.balance(ts.rt.db, teamId)) ?? -1;
    expect(await teamCreditsRepository.ledgerSum(ts.rt.db, teamId)).toBe(balance);
    return balance;
  };
  const personalBalance = async (userId: string) => {
    const balance = await ts.rt.credits.balance(userId);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(balance);
    return balance;
  };
  const tokenOf = (path: string) => decodeURIComponent(path.split('/join/')[1]);

  /** Invites `people` by a pasted list and has each accept the link mailed to them. */
  async function join(owner: Person, teamId: string, people: Person[]) {
    await json(await owner.client.post(`/api/teams/${teamId}/invites`, { text: people.map((p) => p.email).join('\n'), send: true }));
    for (const p of people) await json(await p.client.post(`/api/team-invites/${tokenOf(await ts.mailedLink(p.email, '/join/'))}/accept`));
  }

  it('CSV import: a row-by-row report first, nothing sent; then one transaction sends only the good rows', async () => {
    const owner = await ts.signUp({ email: `owner-${randomUUID().slice(0, 6)}@acme.test` });
    const team = await newTeam(owner);
    await json(await send(owner.client, 'PATCH', `/api/teams/${team.id}`, { domain: 'acme.test' }));
    const csv = [
      'email,name,title',
      'jane@acme.test,Jane Doe,Designer',
      'not-an-address,Nobody,',
      'JANE@acme.test,Jane Again,',
      `${owner.email},The Owner,`,
      'sam@elsewhere.test,Sam,',
      '"lee@acme.test","Lee, Kim","Head of ""Ops"""',
    ].join('\r\n');
    const report = await json<{ rows: InviteReportRow[]; sent: number }>(
      await owner.client.post(`/api/teams/${team.id}/invites`, { text: csv }),
    );
    expect(report.sent).toBe(0);
    expect(report.rows.map((r) => [r.line, r.email, r.outcome])).toEqual([
      [2, 'jane@acme.test', 'invite'],
      [3, 'not-an-address', 'malformed'],
      [4, 'jane@acme.test', 'duplicate'],
      [5, owner.email, 'member'],
      [6, 'sam@elsewhere.test', 'outside_domain'],
      [7, 'lee@acme.test', 'invite'],
    ]);
    expect(report.rows[5]).toMatchObject({ name: 'Lee, Kim', title: 'Head of "Ops"' });
    expect(await ts.rt.db.select().from(teamInvites).where(eq(teamInvites.teamId, team.id))).toHaveLength(0);

    const sent = await json<{ rows: InviteReportRow[]; sent: number }>(
      await owner.client.post(`/api/teams/${team.id}/invites`, { text: csv, send: true }),
    );
    expect(sent.sent).toBe(2);
    const mails = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.kind, 'team-invite'));
    expect(mails.filter((m) => m.toAddress === 'jane@acme.test' || m.toAddress === 'lee@acme.test')).toHaveLength(2);
    // Sent again: both are 'already invited' now, and nothing more goes out.
    const again = await json<{ rows: InviteReportRow[]; sent: number }>(
      await owner.client.post(`/api/teams/${team.id}/invites`, { text: csv, send: true }),
    );
    expect(again.sent).toBe(0);
    expect(again.rows.filter((r) => r.outcome === 'invited')).toHaveLength(2);
    // Only the token's hash is kept for a personal invite.
    const rows = await ts.rt.db.select().from(teamInvites).where(eq(teamInvites.teamId, team.id));
    expect(rows.every((r) => r.token === null && /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true);

    // Over the limit: a clear refusal, nothing sent.
    const big = ['email', ...Array.from({ length: INVITE_ROW_LIMIT + 1 }, (_, i) => `p${i}@acme.test`)].join('\n');
    const refused = await owner.client.post(`/api/teams/${team.id}/invites`, { text: big, send: true });
    expect(refused.status).toBe(413);
    expect((await refused.json()).message).toBe(TEAM_TEXTS.rowLimit(INVITE_ROW_LIMIT + 1));
    expect(await ts.rt.db.select().from(teamInvites).where(eq(teamInvites.teamId, team.id))).toHaveLength(2);
  }, 120_000);

  it('invite links: single use, expiry, revoked, re-sent (the old link stops working), open link domain and usage limit', async () => {
    const owner = await ts.signUp();
    const team = await newTeam(owner, 'Links Ltd');
    const [a, b, c] = [await ts.signUp(), await ts.signUp(), await ts.signUp({ email: `c-${randomUUID().slice(0, 6)}@corp.test` })];
    await json(await owner.client.post(`/api/teams/${team.id}/invites`, { text: `${a.email}\n${b.email}`, send: true }));
    const tokenA = tokenOf(await ts.mailedLink(a.email, '/join/'));
    const welcome = await json<{ ok: boolean; team: string }>(await ts.client().get(`/api/team-invites/${tokenA}`));
    expect(welcome).toMatchObject({ ok: true, team: 'Links Ltd' });
    // Accepting needs an account.
    expect((await ts.client().post(`/api/team-invites/${tokenA}/accept`)).status).toBe(401);
    expect(await json(await a.client.post(`/api/team-invites/${tokenA}/accept`))).toEqual({ team_id: team.id });
    // Used: someone else holding the link is refused, and the page says so.
    const used = await b.client.post(`/api/team-invites/${tokenA}/accept`);
    expect(used.status).toBe(410);
    expect((await used.json()).message).toBe(TEAM_TEXTS.linkUsed);
    expect(await json(await ts.client().get(`/api/team-invites/${tokenA}`))).toEqual({
      ok: false,
      reason: 'used',
      message: TEAM_TEXTS.linkUsed,
    });

    // Expired, then re-sent: a new link that works; the expired one is unknown now.
    const tokenB = tokenOf(await ts.mailedLink(b.email, '/join/'));
    await ts.rt.db
      .update(teamInvites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(teamInvites.email, b.email));
    const expired = await b.client.post(`/api/team-invites/${tokenB}/accept`);
    expect([expired.status, (await expired.json()).message]).toEqual([410, TEAM_TEXTS.linkExpired]);
    const [inviteB] = await ts.rt.db.select().from(teamInvites).where(eq(teamInvites.email, b.email));
    await json(await owner.client.post(`/api/teams/${team.id}/invites/${inviteB.id}/resend`));
    const resent = await waitFor('the re-sent link', async () => {
      const t = tokenOf(await ts.mailedLink(b.email, '/join/'));
      return t !== tokenB && t;
    });
    expect((await b.client.post(`/api/team-invites/${tokenB}/accept`)).status).toBe(404);
    // Revoked: refused with its own words.
    await json(await owner.client.post(`/api/teams/${team.id}/invites/${inviteB.id}/revoke`));
    const revoked = await b.client.post(`/api/team-invites/${resent}/accept`);
    expect([revoked.status, (await revoked.json()).message]).toEqual([410, TEAM_TEXTS.linkRevoked]);

    // Open link: the domain is the account's verified address's; the usage limit counts.
    const link = await json<{ id: string; token: string; use_count: number }>(
      await owner.client.post(`/api/teams/${team.id}/open-links`, { domain: '@Corp.test', usage_limit: 1 }),
      201,
    );
    const outside = await b.client.post(`/api/team-invites/${link.token}/accept`);
    expect([outside.status, (await outside.json()).message]).toEqual([403, TEAM_TEXTS.outsideDomain('corp.test')]);
    expect(await json(await c.client.post(`/api/team-invites/${link.token}/accept`))).toEqual({ team_id: team.id });
    const d = await ts.signUp({ email: `d-${randomUUID().slice(0, 6)}@corp.test` });
    const full = await d.client.post(`/api/team-invites/${link.token}/accept`);
    expect([full.status, (await full.json()).message]).toEqual([410, TEAM_TEXTS.linkFull]);
    const listed = await json<{ items: { id: string; use_count: number }[] }>(await owner.client.get(`/api/teams/${team.id}/invites`));
    expect(listed.items.find((i) => i.id === link.id)?.use_count).toBe(1);
    // An open link past its expiry.
    const old = await json<{ token: string }>(
      await owner.client.post(`/api/teams/${team.id}/open-links`, { expires_at: new Date(Date.now() - 60_000).toISOString() }),
      201,
    );
    expect((await d.client.post(`/api/team-invites/${old.token}/accept`)).status).toBe(410);
    const members = await json<{ items: TeamMemberView[] }>(await owner.client.get(`/api/teams/${team.id}/members`));
    expect(members.items.map((m) => m.user_id).sort()).toEqual([owner.userId, a.userId, c.userId].sort());
  }, 120_000);

  it('Remind re-sends the invite of people invited who never joined, with a new link, at most once a day per person', async () => {
    const owner = await ts.signUp();
    const team = await newTeam(owner, 'Nudge Ltd');
    const [fresh, stale, withdrawn, joined] = ['fresh', 'stale', 'withdrawn', 'joined'].map(
      (w) => `${w}-${randomUUID().slice(0, 6)}@nudge.test`,
    );
    const joiner = await ts.signUp({ email: joined });
    await json(
      await owner.client.post(`/api/teams/${team.id}/invites`, { text: [fresh, stale, withdrawn, joined].join('\n'), send: true }),
    );
    const firstLink = tokenOf(await ts.mailedLink(stale, '/join/'));
    await json(await joiner.client.post(`/api/team-invites/${tokenOf(await ts.mailedLink(joined, '/join/'))}/accept`));
    const invites = await ts.rt.db.select().from(teamInvites).where(eq(teamInvites.teamId, team.id));
    const idOf = (email: string) => invites.find((i) => i.email === email)!.id;
    await json(await owner.client.post(`/api/teams/${team.id}/invites/${idOf(withdrawn)}/revoke`));
    // Mailed more than a day ago: the stale and the withdrawn invites. The fresh one was mailed just now.
    await ts.rt.db
      .update(teamInvites)
      .set({ sentAt: sql`now() - interval '25 hours'` })
      .where(eq(teamInvites.teamId, team.id));
    await ts.rt.db
      .update(teamInvites)
      .set({ sentAt: new Date() })
      .where(eq(teamInvites.id, idOf(fresh)));
    const invitesTo = async (email: string) =>
      (await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.kind, 'team-invite'))).filter((m) => m.toAddress === email).length;
    const before = { fresh: await invitesTo(fresh), withdrawn: await invitesTo(withdrawn), joined: await invitesTo(joined) };

    // The joined member (nothing done yet) is reminded, and the stale invite re-sent; twice in a row, or by two
    // clicks at once, nobody more.
    const clicks = await Promise.all([1, 2].map(() => owner.client.post(`/api/teams/${team.id}/remind`)));
    const counts = await Promise.all(clicks.map((r) => json<{ reminded: number }>(r)));
    expect(counts.map((c) => c.reminded).sort()).toEqual([0, 2]);
    expect(await json(await owner.client.post(`/api/teams/${team.id}/remind`))).toEqual({ reminded: 0 });
    expect(await invitesTo(stale)).toBe(2);
    expect({ fresh: await invitesTo(fresh), withdrawn: await invitesTo(withdrawn), joined: await invitesTo(joined) }).toEqual(before);

    // The re-sent mail carries a new link that works for another 7 days; the first one no longer does.
    const newLink = await waitFor('the re-sent invite', async () => {
      const t = tokenOf(await ts.mailedLink(stale, '/join/'));
      return t !== firstLink && t;
    });
    const [renewed] = await ts.rt.db
      .select()
      .from(teamInvites)
      .where(eq(teamInvites.id, idOf(stale)));
    expect(renewed.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6.9 * 24 * 3600 * 1000);
    const late = await ts.signUp({ email: stale });
    expect((await late.client.post(`/api/team-invites/${firstLink}/accept`)).status).toBe(404);
    expect(await json(await late.client.post(`/api/team-invites/${newLink}/accept`))).toEqual({ team_id: team.id });
  }, 120_000);

  it('the team ledger stays exact under 20 parallel spends, and a refund happens once', async () => {
    const owner = await ts.signUp();
    const team = await newTeam(owner);
    await grantTeam(ts.rt.db, ts.rt.events, team.id, owner.userId, 100, 'test purchase', `test:${randomUUID()}`);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        ts.rt.db.transaction((tx) => debitTeam(tx, ts.rt.events, team.id, owner.userId, 10, 'spend', `spend:${team.id}:${i}`)),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(10);
    expect(refused.every((r) => r.reason.code === 'insufficient_team_credits')).toBe(true);
    expect(await teamBalance(team.id)).toBe(0);
    for (let i = 0; i < 2; i++)
      await ts.rt.db.transaction((tx) => refundTeam(tx, ts.rt.events, team.id, owner.userId, 10, 'refund', `spend:${team.id}:0`));
    expect(await teamBalance(team.id)).toBe(10);
    // The owner's personal balance never moved.
    expect(await personalBalance(owner.userId)).toBe(0);
    const [row] = await ts.rt.db.select({ credits: teams.credits }).from(teams).where(eq(teams.id, team.id));
    expect(row.credits).toBe(10);
  }, 60_000);

  it('a member’s way: team training and team shoot paid by the team only, pick, submit, approve, Download all, Remind once a day, removal refunds the team', async () => {
    const owner = await ts.signUp({ name: 'Olga Owner', credits: 5000 });
    const team = await newTeam(owner, 'Shoot Co');
    await json(
      await send(owner.client, 'PUT', `/api/teams/${team.id}/look`, {
        pack_id: 'linkedin-profile',
        aspect_ratio: '4:5',
        due_date: '2026-12-04',
      }),
    );
    await grantTeam(ts.rt.db, ts.rt.events, team.id, owner.userId, 1000, 'test purchase', `test:${randomUUID()}`);
    const jane = await ts.signUp({ name: 'Jane Doe', credits: 700 });
    const sam = await ts.signUp({ name: 'Sam Roe' });
    await join(owner, team.id, [jane, sam]);

    // Team training: the team pays 500, Jane's own 700 stay.
    const archive = await uploadArchive(jane.client, await trainingArchive(4));
    const submitted = await json<{ request_id: string }>(
      await jane.client.post('/api/image/submit-lora-training', trainingPayload(archive, { team_id: team.id })),
    );
    expect(await teamBalance(team.id)).toBe(500);
    expect(await personalBalance(jane.userId)).toBe(700);
    const trained = await trainingEnded(jane.client, submitted.request_id, team.id);
    expect(trained.status).toBe('COMPLETED');

    // The team shoot uses the team's look (linkedin-profile in 4:5), whatever pack is sent.
    const shoot = await json<ShootView>(
      await jane.client.post('/api/shoots', { pack_id: 'travel', lora_id: trained.id, team_id: team.id }),
      201,
    );
    const pack = await ts.rt.shoots.getPack('linkedin-profile');
    expect(shoot.photo_count).toBe(pack.photo_count);
    expect(await teamBalance(team.id)).toBe(500 - pack.cost);
    expect(await personalBalance(jane.userId)).toBe(700);
    const done = await waitFor('the team shoot', async () => {
      const s = await json<ShootView>(await jane.client.get(`/api/shoots/${shoot.id}`));
      return s.status !== 'RUNNING' && s;
    });
    expect(done.status).toBe('COMPLETED');
    const [shot] = await ts.rt.db.select().from(photoShoots).where(eq(photoShoots.id, shoot.id));
    expect(shot.teamId).toBe(team.id);
    const photos = await ts.rt.db.select().from(generations).where(eq(generations.shootId, shoot.id));
    expect(photos[0].width).toBe(896);

    // The space switcher's lists (issue 49 item 1): the team's space shows Jane's team work, her personal space
    // none of it; a space she is not in does not exist for her; the balance shown there is the team's.
    const ids_ = <T extends { id: string }>(r: { items: T[] }) => r.items.map((i) => i.id);
    const inSpace = async (path: string, team?: string) =>
      json<{ items: { id: string }[] }>(await jane.client.get(`${path}${team ? `${path.includes('?') ? '&' : '?'}team=${team}` : ''}`));
    expect(ids_(await inSpace('/api/trainings', team.id))).toEqual([trained.id]);
    expect(ids_(await inSpace('/api/trainings'))).toEqual([]);
    expect(ids_(await inSpace('/api/characters', team.id))).toEqual([trained.id]);
    expect(ids_(await inSpace('/api/characters'))).toEqual([]);
    expect(ids_(await inSpace('/api/shoots', team.id))).toEqual([shoot.id]);
    expect(ids_(await inSpace('/api/shoots?running=false'))).toEqual([]);
    expect((await inSpace('/api/generations?limit=40', team.id)).items).toHaveLength(Math.min(photos.length, 40));
    expect((await inSpace('/api/generations?limit=40')).items).toHaveLength(0);
    const teamLibrary = await json<{ total: number }>(await jane.client.get(`/api/library/generations?page=1&team=${team.id}`));
    expect(teamLibrary.total).toBe(photos.length);
    expect((await json<{ total: number }>(await jane.client.get('/api/library/generations?page=1'))).total).toBe(0);
    const elsewhere = await newTeam(owner, 'Not Jane’s');
    for (const path of ['/api/trainings', '/api/characters', '/api/shoots', '/api/generations', '/api/library/generations']) {
      expect((await jane.client.get(`${path}?team=${elsewhere.id}`)).status, path).toBe(404);
      expect((await jane.client.get(`${path}?team=not-a-team`)).status, path).toBe(400);
    }
    expect((await json<TeamView>(await jane.client.get(`/api/teams/${team.id}`))).credits).toBe(await teamBalance(team.id));

    // Pick: up to 3, own team photos only; changeable until approved.
    const ids = photos.slice(0, 3).map((p) => p.id);
    expect((await send(jane.client, 'PUT', `/api/teams/${team.id}/submission`, { generation_ids: [...ids, photos[3].id] })).status).toBe(
      400,
    );
    expect((await send(sam.client, 'PUT', `/api/teams/${team.id}/submission`, { generation_ids: ids })).status).toBe(400);
    expect(
      await json<TeamMemberView>(await send(jane.client, 'PUT', `/api/teams/${team.id}/submission`, { generation_ids: [ids[1]] })),
    ).toMatchObject({ status: 'submitted' });
    await json(await send(jane.client, 'PUT', `/api/teams/${team.id}/submission`, { generation_ids: ids.slice(0, 2) }));
    const board = await json<{ items: TeamMemberView[] }>(await owner.client.get(`/api/teams/${team.id}/members`));
    expect(Object.fromEntries(board.items.map((m) => [m.name, m.status]))).toEqual({
      'Jane Doe': 'submitted',
      'Olga Owner': 'joined',
      'Sam Roe': 'joined',
    });
    expect(
      (await json<{ items: TeamMemberView[] }>(await owner.client.get(`/api/teams/${team.id}/members?status=submitted`))).items,
    ).toHaveLength(1);
    await json(await owner.client.post(`/api/teams/${team.id}/members/${jane.userId}/approve`));
    expect((await send(jane.client, 'PUT', `/api/teams/${team.id}/submission`, { generation_ids: [ids[2]] })).status).toBe(409);

    // Download all: named by person, with team.csv.
    const zipRes = await owner.client.get(`/api/teams/${team.id}/archive`);
    expect(zipRes.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zipRes.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['jane-doe-2.jpg', 'jane-doe.jpg', 'team.csv']);
    expect(strFromU8(files['team.csv'])).toBe(
      `name,email,title,file\r\nJane Doe,${jane.email},,jane-doe.jpg\r\nJane Doe,${jane.email},,jane-doe-2.jpg\r\n`,
    );

    // Remind: Sam (not done) once; a second click the same day mails nobody.
    expect(await json(await owner.client.post(`/api/teams/${team.id}/remind`))).toEqual({ reminded: 1 });
    expect(await json(await owner.client.post(`/api/teams/${team.id}/remind`))).toEqual({ reminded: 0 });
    const reminders = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.kind, 'team-reminder'));
    expect(reminders.filter((m) => m.toAddress === sam.email)).toHaveLength(1);
    expect(reminders.filter((m) => m.toAddress === jane.email)).toHaveLength(0);

    // Removal mid-shoot: the photos not taken go back to the team, once; the team data about Jane is erased; her
    // personal account and balance stay.
    const second = await json<ShootView>(
      await jane.client.post('/api/shoots', { pack_id: 'x', lora_id: trained.id, team_id: team.id }),
      201,
    );
    const before = await teamBalance(team.id);
    const removed = await json<{ refunded: number }>(await send(owner.client, 'DELETE', `/api/teams/${team.id}/members/${jane.userId}`));
    const after = await teamBalance(team.id);
    expect(after - before).toBe(removed.refunded);
    expect(removed.refunded % 10).toBe(0);
    expect(await personalBalance(jane.userId)).toBe(700);
    expect(await ts.rt.db.select().from(photoShoots).where(eq(photoShoots.teamId, team.id))).toHaveLength(0);
    const left = await ts.rt.db
      .select()
      .from(generations)
      .where(sql`${generations.id} in ${photos.map((p) => p.id)}`);
    expect(left.every((g) => g.status === 'DELETED')).toBe(true);
    const [character] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.id, trained.id));
    expect(character.deletedAt).not.toBeNull();
    expect((await jane.client.get(`/api/teams/${team.id}`)).status).toBe(404);
    expect((await jane.client.get(`/api/shoots/${second.id}`)).status).toBe(404);
    // Her personal ledger has no team row; the team's ledger has every team debit and refund.
    const personal = await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, jane.userId));
    expect(personal.map((l) => l.delta)).toEqual([700]);
    const teamRows = await ts.rt.db.select().from(teamCreditLedger).where(eq(teamCreditLedger.teamId, team.id));
    const refunds = teamRows.filter((r) => r.kind === 'refund');
    expect(refunds.map((r) => [r.idempotencyKey, r.delta])).toEqual(
      removed.refunded ? [[`refund:shoot-cancel:${second.id}`, removed.refunded]] : [],
    );
  }, 400_000);

  it('space separation: personal work never charges the team, team work never charges the person; a failed team training refunds the team once', async () => {
    const owner = await ts.signUp({ credits: 1000 });
    const team = await newTeam(owner);
    await json(
      await send(owner.client, 'PUT', `/api/teams/${team.id}/look`, { pack_id: 'linkedin-profile', aspect_ratio: '1:1', due_date: null }),
    );
    await grantTeam(ts.rt.db, ts.rt.events, team.id, owner.userId, 600, 'test purchase', `test:${randomUUID()}`);
    // A personal training with a poor person and a rich team: refused, nothing taken from the team.
    const poor = await ts.signUp();
    await join(owner, team.id, [poor]);
    const archive = await uploadArchive(poor.client, await trainingArchive(4));
    const refused = await poor.client.post('/api/image/submit-lora-training', trainingPayload(archive));
    expect(refused.status).toBe(402);
    expect(await teamBalance(team.id)).toBe(600);
    // A team training by someone not in the team: 404, nothing taken from anyone.
    const outsiderArchive = await uploadArchive(owner.client, await trainingArchive(4));
    const stranger = await ts.signUp({ credits: 1000 });
    const strangerArchive = await uploadArchive(stranger.client, await trainingArchive(4));
    expect(
      (await stranger.client.post('/api/image/submit-lora-training', trainingPayload(strangerArchive, { team_id: team.id }))).status,
    ).toBe(404);
    expect(await personalBalance(stranger.userId)).toBe(1000);
    // The owner's personal training is paid personally.
    const personal = await json<{ request_id: string }>(
      await owner.client.post('/api/image/submit-lora-training', trainingPayload(outsiderArchive)),
    );
    expect(await personalBalance(owner.userId)).toBe(500);
    expect(await teamBalance(team.id)).toBe(600);
    await trainingEnded(owner.client, personal.request_id);
    // A team training that fails refunds the team, once, and never the person.
    const team1 = await json<{ request_id: string }>(
      await poor.client.post(
        '/api/image/submit-lora-training',
        trainingPayload(archive, { team_id: team.id, character_name: 'Team Dana' }),
      ),
    );
    const [row] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.requestId, team1.request_id));
    expect(await teamBalance(team.id)).toBe(100);
    const deps = { db: ts.rt.db, credits: ts.rt.credits, events: ts.rt.events, metrics: ts.rt.metrics };
    await finishTraining(deps, row.id, { status: 'FAILED', error: 'test failure' });
    await finishTraining(deps, row.id, { status: 'FAILED', error: 'test failure' });
    expect(await teamBalance(team.id)).toBe(600);
    expect(await personalBalance(poor.userId)).toBe(0);
    // Team shoot with a personal character: refused; with too few team credits: 402 naming the team's balance.
    const [mine] = await ts.rt.db.select().from(loraTrainings).where(eq(loraTrainings.requestId, personal.request_id));
    expect((await owner.client.post('/api/shoots', { pack_id: 'x', lora_id: mine.id, team_id: team.id })).status).toBe(403);
    expect(await teamBalance(team.id)).toBe(600);
    expect(await personalBalance(owner.userId)).toBe(500);
  }, 400_000);
});
