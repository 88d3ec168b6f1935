import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { catalogueSchema, fillPrompt, PACK_ASPECTS, type Catalogue, type CataloguePack } from '@common/photo-shoots.ts';
import { GENDERS, HAIR_COLORS } from '@common/training.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { ImageGenerator } from '../providers/inference/index.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { locksRepository } from '../repositories/locks.repository.ts';
import { shootsRepository as repo, type PackWithPrompts } from '../repositories/shoots.repository.ts';

/** The repository's catalogue of photo packs; its `version` moves on whenever a pack changes. */
export const CATALOGUE_FILE = new URL('../catalogue/photo-packs.json', import.meta.url);
/** Sample photos rendered per pack (the first is its cover). */
export const SAMPLES_PER_PACK = 3;
/** Serialises catalogue seeding across instances starting at once. */
const SEED_LOCK = 0x5eed_0020;

export function readCatalogue(file: URL | string = CATALOGUE_FILE): Catalogue {
  return parseCatalogue(JSON.parse(readFileSync(file, 'utf8')), String(file));
}

/** A catalogue file's content, or an error naming the first bad field. */
export function parseCatalogue(json: unknown, source: string): Catalogue {
  const result = catalogueSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`${source}: ${issue.path.join('.') || 'catalogue'} ${issue.message}`);
  }
  const ids = new Set<string>();
  for (const pack of result.data.packs) {
    if (ids.has(pack.id)) throw new Error(`${source}: the pack id ${pack.id} appears twice`);
    ids.add(pack.id);
  }
  return result.data;
}

const rowOf = (pack: CataloguePack, position: number, version: number, source: 'catalogue' | 'operator') => ({
  id: pack.id,
  name: pack.name,
  description: pack.description,
  category: pack.category,
  aspectRatio: pack.aspect_ratio,
  ...PACK_ASPECTS[pack.aspect_ratio],
  position,
  catalogueVersion: version,
  source,
});

export interface SeedReport {
  written: string[];
  hidden: string[];
}

/**
 * Brings the database's packs up to the catalogue file, idempotently: a pack whose row already has this
 * version is left alone (an operator's hide holds), a newer version updates the row and replaces its prompts
 * (running shoots keep their own filled prompts), an operator's pack of the same id is not touched, and a
 * catalogue pack no longer in the file is hidden, never deleted (shoots point at it).
 */
export async function seedCatalogue(db: Db, catalogue: Catalogue = readCatalogue()): Promise<SeedReport> {
  return db.transaction(async (tx) => {
    await locksRepository.lockForTransaction(tx, SEED_LOCK);
    const existing = new Map((await repo.listPacks(tx, { includeHidden: true })).map((p) => [p.id, p]));
    const written: string[] = [];
    for (const [position, pack] of catalogue.packs.entries()) {
      const row = existing.get(pack.id);
      if (row && (row.source === 'operator' || row.catalogueVersion >= catalogue.version)) continue;
      await repo.upsertPack(tx, rowOf(pack, position, catalogue.version, 'catalogue'), pack.prompts);
      written.push(pack.id);
    }
    const hidden = await repo.hideCataloguePacksExcept(
      tx,
      catalogue.packs.map((p) => p.id),
    );
    return { written, hidden };
  });
}

/** `admin packs import`: packs from a file (the catalogue's format) become operator packs, shown. */
export async function importPacks(db: Db, catalogue: Catalogue): Promise<string[]> {
  return db.transaction(async (tx) => {
    const existing = await repo.listPacks(tx, { includeHidden: true });
    let position = existing.reduce((max, p) => Math.max(max, p.position), -1) + 1;
    const byId = new Map(existing.map((p) => [p.id, p]));
    for (const pack of catalogue.packs) {
      const keep = byId.get(pack.id)?.position;
      await repo.upsertPack(tx, { ...rowOf(pack, keep ?? position++, catalogue.version, 'operator'), hidden: false }, pack.prompts);
    }
    return catalogue.packs.map((p) => p.id);
  });
}

/** `admin packs export`: every pack (hidden ones too, flagged) in the catalogue's format. */
export async function exportPacks(db: Db): Promise<Catalogue & { packs: (CataloguePack & { hidden: boolean })[] }> {
  const packs = await repo.listPacks(db, { includeHidden: true });
  const version = packs.reduce((max, p) => Math.max(max, p.catalogueVersion), 1);
  return {
    version,
    packs: packs.map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      category: p.category,
      aspect_ratio: p.aspectRatio as CataloguePack['aspect_ratio'],
      prompts: p.prompts,
      hidden: p.hidden,
    })),
  };
}

/** The model a cover shows: varied across packs, so the grid does not repeat one face; named as a person would be. */
function coverCharacter(index: number) {
  return { triggerWord: 'alex', gender: GENDERS[index % 2], hairColor: HAIR_COLORS[(index * 3) % (HAIR_COLORS.length - 1)] };
}

/** Where a pack's sample lives: the prompt's hash in the name, so a changed prompt gets a new image. */
const sampleKey = (pack: PackWithPrompts, prompt: string) =>
  `packs/${pack.id}/${createHash('sha256').update(prompt).digest('hex').slice(0, 16)}.jpeg`;

export interface CoverDeps {
  db: Db;
  storage: StorageProvider;
  generator: ImageGenerator;
  logger: Logger;
}

/**
 * Renders each pack's sample photos (its first prompts, filled for a stand-in model) with `generator`:
 * packs without samples only, or every pack with `force` (`admin packs covers`). Returns the packs rendered.
 */
export async function renderCovers(
  deps: CoverDeps,
  opts: { force?: boolean; only?: string; signal?: AbortSignal; onPack?: (id: string) => void } = {},
): Promise<string[]> {
  const packs = await repo.listPacks(deps.db, { includeHidden: false });
  const done: string[] = [];
  for (const [index, pack] of packs.entries()) {
    if (opts.only && pack.id !== opts.only) continue;
    const prompts = pack.prompts.slice(0, SAMPLES_PER_PACK).map((template, i) => fillPrompt(template, coverCharacter(index + i)));
    // A pack whose samples are of its prompts as they are filled now is done; changed prompts get new ones.
    const current = prompts.map((prompt) => mediaUrl(sampleKey(pack, prompt)));
    if (!opts.force && current.every((url) => pack.sampleUrls.includes(url))) continue;
    const urls: string[] = [];
    for (const [i, prompt] of prompts.entries()) {
      if (opts.signal?.aborted) return done;
      const key = sampleKey(pack, prompt);
      if (!opts.force && (await deps.storage.exists(key))) {
        urls.push(mediaUrl(key));
        continue;
      }
      const output = await deps.generator.generate(
        {
          prompt,
          imageSize: { width: pack.width, height: pack.height },
          loras: [],
          seed: 4242 + index * 97 + i,
          numInferenceSteps: 28,
          guidanceScale: 3.5,
          outputFormat: 'jpeg',
        },
        { signal: opts.signal },
      );
      const image = output.images[0];
      if (!image || image.nsfw) continue;
      const data = image.data ?? Buffer.from(await (await fetch(image.url!, { signal: AbortSignal.timeout(60_000) })).arrayBuffer());
      await deps.storage.put(key, data, image.contentType || 'image/jpeg');
      urls.push(mediaUrl(key));
    }
    await repo.setCovers(deps.db, pack.id, urls);
    opts.onPack?.(pack.id);
    done.push(pack.id);
  }
  if (done.length) deps.logger.info({ packs: done.length }, 'rendered photo-pack covers');
  return done;
}
