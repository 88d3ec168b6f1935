import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { admin } from '../helpers/admin.ts';
import { startTestServer } from '../helpers/server.ts';

describe('admin packs command (pglite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-admin-packs-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir };

  it('imports, exports, hides, shows and re-renders the covers of packs', async () => {
    const pack = {
      id: 'headshots-for-lawyers',
      name: 'Law Firm',
      description: 'Partners page portraits.',
      category: 'Corporate headshot',
      aspect_ratio: '4:5',
      prompts: Array.from(
        { length: 8 },
        (_, i) => `headshot of {subject} with {hair} in a law library, navy suit, 85mm lens, soft window light, take ${i + 1}`,
      ),
    };
    const file = join(dataDir, 'packs.json');
    writeFileSync(file, JSON.stringify({ version: 1, packs: [pack] }));
    const imported = await admin(env, 'packs', 'import', file);
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.out).toContain('Imported 1 pack: headshots-for-lawyers.');

    writeFileSync(file, JSON.stringify({ version: 1, packs: [{ ...pack, prompts: pack.prompts.slice(0, 3) }] }));
    const refused = await admin(env, 'packs', 'import', file);
    expect(refused.code).toBe(64);
    expect(refused.err).toContain('packs.0.prompts must hold at least 8 prompts');

    const out = join(dataDir, 'export.json');
    expect((await admin(env, 'packs', 'export', out)).code).toBe(0);
    const exported = JSON.parse(readFileSync(out, 'utf8'));
    expect(exported.packs.length).toBeGreaterThanOrEqual(13);
    expect(exported.packs.find((p: { id: string }) => p.id === pack.id)).toMatchObject({
      name: 'Law Firm',
      hidden: false,
      prompts: pack.prompts,
    });

    expect((await admin(env, 'packs', 'hide', pack.id)).out).toBe(`Pack ${pack.id} is hidden; shoots already running finish.`);
    expect((await admin(env, 'packs', 'hide', 'nope')).code).toBe(1);
    expect((await admin(env, 'packs', 'covers', pack.id)).err).toBe(`There is no shown pack ${pack.id}.`);
    expect((await admin(env, 'packs', 'show', pack.id)).code).toBe(0);
    const covers = await admin(env, 'packs', 'covers', pack.id);
    expect(covers.out).toContain('Rendered the covers of 1 pack with builtin.');

    const ts = await startTestServer({ dataDir });
    try {
      const row = await shootsRepository.findPack(ts.rt.db, pack.id);
      expect(row?.sampleUrls).toHaveLength(3);
      expect(row?.coverUrl).toBe(row?.sampleUrls[0]);
      // Covers are public images.
      const res = await fetch(`${ts.url}${row!.coverUrl}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect((await (await fetch(`${ts.url}/api/photo-packs`)).json()).items.some((p: { id: string }) => p.id === pack.id)).toBe(true);
    } finally {
      await ts.stop();
    }
  }, 120_000);
});
