import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoPackPrompts, photoPacks } from '../../server/db/schema.ts';
import { createBuiltinGenerator } from '../../server/providers/inference/builtin-generator.ts';
import type { ImageGenerator } from '../../server/providers/inference/index.ts';
import { renderCovers, SAMPLES_PER_PACK } from '../../server/services/packs.service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('photo-pack covers', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  }, 120_000);
  afterAll(async () => ts?.stop());

  it('are rendered once, and again when the prompts they show change (a pack edited, or filled differently)', async () => {
    const builtin = createBuiltinGenerator({ loadLora: async () => null });
    const prompts: string[] = [];
    const counting: ImageGenerator = {
      ...builtin,
      generate: (input, opts) => (prompts.push(input.prompt), builtin.generate(input, opts)),
    };
    const deps = { db: ts.rt.db, storage: ts.rt.storage, generator: counting, logger: ts.rt.logger };
    const pack = 'studio-black-white';
    expect(await renderCovers(deps, { only: pack })).toEqual([pack]);
    expect(prompts).toHaveLength(SAMPLES_PER_PACK);
    // The stand-in reads as a person would be named, never 'a, a woman'.
    for (const prompt of prompts) expect(prompt).toMatch(/alex, a (woman|man)/);
    expect(await renderCovers(deps, { only: pack })).toEqual([]);
    expect(prompts).toHaveLength(SAMPLES_PER_PACK);

    // An edited first prompt: that sample is rendered anew, the others are reused from storage.
    await ts.rt.db
      .update(photoPackPrompts)
      .set({ template: 'black and white portrait of {subject}, charcoal backdrop, 85mm lens, monochrome' })
      .where(and(eq(photoPackPrompts.packId, pack), eq(photoPackPrompts.position, 0)));
    expect(await renderCovers(deps, { only: pack })).toEqual([pack]);
    expect(prompts).toHaveLength(SAMPLES_PER_PACK + 1);
    expect(prompts.at(-1)).toContain('charcoal backdrop');
    const [{ sampleUrls }] = await ts.rt.db.select({ sampleUrls: photoPacks.sampleUrls }).from(photoPacks).where(eq(photoPacks.id, pack));
    expect(sampleUrls).toHaveLength(SAMPLES_PER_PACK);
    expect(new Set(sampleUrls).size).toBe(SAMPLES_PER_PACK);
  }, 120_000);
});
