/**
 * The credits page's history in hosted mode (issue 50 item 1, "lists through supabase-js under RLS"): the hosted
 * adapter reads the credit_history view through PostgREST (the fake, over the real PostgreSQL with
 * supabase/migrations and row-level security) and gives the same pages as the server's own reading of the view,
 * links included, with lines that share a timestamp to the microsecond; nobody reads another person's lines.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeHistoryCursor, type HistoryPage, type LedgerEntry, type LedgerLine } from '@common/credits';
import { createCreditsHistoryService } from '../../server/services/credits-history.service.ts';
import { useHostedStack } from '../helpers/hosted-stack.ts';

describe('credits history in hosted mode (postgres + RLS, PostgREST fake)', () => {
  const stack = useHostedStack('Credits');

  /** Every page, first to last, as `read` answers them: the lines of each page and how many pages there were. */
  async function allPages(read: (cursor: string | null) => Promise<HistoryPage>): Promise<LedgerLine[][]> {
    const pages: LedgerLine[][] = [];
    let cursor: string | null = null;
    do {
      const page = await read(cursor);
      pages.push(page.lines);
      cursor = page.next_cursor;
    } while (cursor !== null && pages.length < 10);
    return pages;
  }

  it('pages the same lines and links as the server, of all kinds or one, and shows nobody else’s', async () => {
    const { me, session } = await stack.signedIn();
    const q = (text: string, values: unknown[]) => stack.db.owner.query(text, values);
    // What lines link to: an image made by a paid job, a job that made none, a shoot's photo, a character.
    const {
      rows: [image],
    } = await q(
      `insert into generations (user_id, prompt, width, height, image_url) values ($1, 'p', 512, 512, '/media/g.jpeg') returning id`,
      [me.id],
    );
    const job = randomUUID();
    const failedJob = randomUUID();
    await q(
      `insert into generation_jobs (id, user_id, input, provider, status, generation_id) values ($1, $3, '{}', 'builtin', 'SUCCEEDED', $4), ($2, $3, '{}', 'builtin', 'FAILED', null)`,
      [job, failedJob, me.id, image.id],
    );
    const {
      rows: [character],
    } = await q(
      `insert into lora_trainings (user_id, character_name, status, request_id) values ($1, 'Mara', 'COMPLETED', $2) returning id`,
      [me.id, randomUUID()],
    );
    await q(
      `insert into photo_packs (id, name, description, category, aspect_ratio, width, height) values ('hc-pack', 'Pack', 'd', 'Travel', '1:1', 1024, 1024) on conflict do nothing`,
      [],
    );
    const {
      rows: [shoot],
    } = await q(
      `insert into photo_shoots (user_id, pack_id, pack_name, character_name, photo_count, cost) values ($1, 'hc-pack', 'Pack', 'Mara', 1, 10) returning id`,
      [me.id],
    );
    const {
      rows: [photo],
    } = await q(
      `insert into shoot_photos (shoot_id, user_id, position, prompt, width, height, seed) values ($1, $2, 0, 'p', 512, 512, 1) returning id`,
      [shoot.id, me.id],
    );

    // 130 lines in groups of 7 that share a timestamp to the microsecond (so page ends fall inside a group), in
    // random order, of every kind of key a writer makes.
    const keys: [string, string][] = [
      [`generation:${job}`, 'Image generation'],
      [`generation:${randomUUID()}`, 'Image upscale 2×'],
      [`refund:generation:${failedJob}`, 'Refund: generation failed'],
      [`shoot:${shoot.id}`, 'Photo shoot: Pack (1 photo)'],
      [`refund:shoot-photo:${photo.id}`, 'Refund: photo shoot photo failed'],
      [`training:${character.id}`, 'character training: Mara'],
      [`promo:SECRET:${me.id}`, 'Promo code SECRET'],
      [`topup:sandbox:order:${randomUUID()}`, 'Top-up: 500 credits'],
    ];
    const lines = Array.from({ length: 130 }, (_, i) => ({ i, group: Math.floor(i / 7) }));
    lines.sort(() => Math.random() - 0.5);
    for (const { i, group } of lines) {
      const [key, reason] = keys[i % keys.length];
      await q(
        `insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after, created_at)
         values ($1, $2, 'debit', $3, $4, $5, timestamptz '2026-11-01T00:00:00.123457Z' - make_interval(secs => $6))`,
        [me.id, -(i + 1), reason, i < keys.length ? key : `${key.replace(/[0-9a-f-]{36}$/, '')}${randomUUID()}`, 1000 + i, group],
      );
    }

    const service = createCreditsHistoryService({ db: stack.server.db });
    for (const kind of [undefined, 'refund', 'generation', 'promo'] as (LedgerEntry | undefined)[]) {
      const before = stack.fakes.rest.requests.length;
      const hosted = await allPages((cursor) => session.data.creditHistory({ kind, cursor }));
      const onServer = await allPages((cursor) => service.page(me.id, { kind, cursor: cursor ? decodeHistoryCursor(cursor)! : undefined }));
      expect(hosted, `kind ${kind ?? 'all'}`).toEqual(onServer);
      expect(hosted.flat().length).toBeGreaterThan(0);
      if (!kind) expect(hosted.map((p) => p.length)).toEqual([50, 50, 30]);
      // Read through supabase-js from the view, never from our server.
      const asked = stack.fakes.rest.requests.slice(before);
      expect(asked.length).toBe(hosted.length);
      expect(asked.every((r) => r.path.startsWith('/credit_history?') && r.role === 'authenticated' && r.status === 200)).toBe(true);
    }
    // Every line once, newest first, the links resolved as the server resolves them.
    const all = (await allPages((cursor) => session.data.creditHistory({ cursor }))).flat();
    expect(new Set(all.map((l) => l.id)).size).toBe(130);
    expect(all.map((l) => l.created_at)).toEqual([...all.map((l) => l.created_at)].sort().reverse());
    const linkOf = (amount: number) => all.find((l) => l.amount === amount)!.link;
    expect(linkOf(-1)).toEqual({ type: 'image', id: image.id });
    expect(linkOf(-3)).toBeNull(); // the refund of a job that made no image
    expect(linkOf(-4)).toEqual({ type: 'shoot', id: shoot.id });
    expect(linkOf(-5)).toEqual({ type: 'shoot', id: shoot.id });
    expect(linkOf(-6)).toEqual({ type: 'character', id: character.id });
    expect(linkOf(-7)).toBeNull();
    expect(JSON.stringify(all)).not.toContain('SECRET:');

    // Someone else, signed in, lists none of these.
    const other = await stack.signedIn();
    expect((await other.session.data.creditHistory({ cursor: null })).lines).toEqual([]);
  }, 120_000);
});
