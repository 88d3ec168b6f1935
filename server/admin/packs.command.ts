import { readFile, writeFile } from 'node:fs/promises';
import { createBuiltinGenerator } from '../providers/inference/builtin-generator.ts';
import { createFalGenerator } from '../providers/inference/fal-generator.ts';
import type { ImageGenerator } from '../providers/inference/index.ts';
import { shootsRepository } from '../repositories/shoots.repository.ts';
import { exportPacks, importPacks, parseCatalogue, renderCovers, seedCatalogue } from '../services/packs.service.ts';
import type { AdminServices } from './command.ts';
import { EXIT, type AdminCommand, type AdminContext } from './command.ts';

const USAGE = [
  'packs list',
  'packs import <file.json>',
  'packs export [<file.json>]',
  'packs hide <pack-id>',
  'packs show <pack-id>',
  'packs covers [<pack-id>]',
];

function usage(ctx: AdminContext, message: string): number {
  ctx.err(message);
  for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
  return EXIT.usage;
}

/** The configured provider (fal with FAL_KEY), as the server would render with it. */
function coverGenerator(services: AdminServices): ImageGenerator {
  const { config, logger } = services;
  if (config.FAL_KEY)
    return createFalGenerator({ credentials: config.FAL_KEY, timeoutMs: config.FAL_GENERATION_TIMEOUT_SECONDS * 1000, logger });
  return createBuiltinGenerator({ loadLora: async () => null });
}

/**
 * `npm run admin -- packs …`: the photo-shoot catalogue. The repository's catalogue file is seeded at every
 * start; `import` adds or replaces operator packs from a file in the same format, `export` writes every pack,
 * `hide` takes a pack off the page (never deleted: shoots point at it), `show` brings it back, and `covers`
 * renders the sample photos again with the configured provider.
 */
export const packsCommand: AdminCommand = {
  summary: 'photo-shoot packs: list, import, export, hide, show, re-render covers',
  usage: USAGE,

  async run(args, ctx) {
    const [action, target, ...extra] = args;
    if (extra.length) return usage(ctx, `Unexpected arguments: ${extra.join(' ')}`);
    if (!USAGE.some((line) => line.split(' ')[1] === action))
      return usage(ctx, action ? `Unknown packs action: ${action}` : 'Missing packs action.');
    // The repository's catalogue first, as a server start would (idempotent), so every action sees it.
    await seedCatalogue((await ctx.open()).db);
    switch (action) {
      case 'list': {
        const { db } = await ctx.open();
        for (const p of await shootsRepository.listPacks(db, { includeHidden: true })) {
          ctx.out(
            `${p.id.padEnd(28)} ${p.hidden ? 'hidden' : 'shown '} ${p.source.padEnd(9)} ${String(p.prompts.length).padStart(2)} photos  ${p.coverUrl ?? 'no cover'}  ${p.name}`,
          );
        }
        return EXIT.ok;
      }
      case 'import': {
        if (!target) return usage(ctx, 'Usage: packs import <file.json>');
        const text = await readFile(target, 'utf8').catch(() => null);
        if (text === null) {
          ctx.err(`Cannot read the file ${target}.`);
          return EXIT.failed;
        }
        let catalogue;
        try {
          catalogue = parseCatalogue(JSON.parse(text), target);
        } catch (e) {
          ctx.err(`Not imported: ${(e as Error).message}`);
          return EXIT.usage;
        }
        const { db } = await ctx.open();
        const ids = await importPacks(db, catalogue);
        ctx.out(
          `Imported ${ids.length} pack${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}. Render their covers with \`npm run admin -- packs covers\`.`,
        );
        return EXIT.ok;
      }
      case 'export': {
        const { db } = await ctx.open();
        const json = `${JSON.stringify(await exportPacks(db), null, 2)}\n`;
        if (target) {
          await writeFile(target, json);
          ctx.out(`Wrote every pack to ${target}.`);
        } else ctx.out(json.trimEnd());
        return EXIT.ok;
      }
      case 'hide':
      case 'show': {
        if (!target) return usage(ctx, `Usage: packs ${action} <pack-id>`);
        const { db } = await ctx.open();
        if (!(await shootsRepository.setHidden(db, target, action === 'hide'))) {
          ctx.err(`There is no pack ${target}.`);
          return EXIT.failed;
        }
        ctx.out(action === 'hide' ? `Pack ${target} is hidden; shoots already running finish.` : `Pack ${target} is shown again.`);
        return EXIT.ok;
      }
      case 'covers': {
        const services = await ctx.open();
        const generator = coverGenerator(services);
        const done = await renderCovers(
          { db: services.db, storage: services.storage, generator, logger: services.logger },
          { force: true, only: target, onPack: (id) => ctx.out(`Rendered the covers of ${id}.`) },
        );
        if (target && done.length === 0) {
          ctx.err(`There is no shown pack ${target}.`);
          return EXIT.failed;
        }
        ctx.out(`Rendered the covers of ${done.length} pack${done.length === 1 ? '' : 's'} with ${generator.name}.`);
        return EXIT.ok;
      }
      default:
        return usage(ctx, action ? `Unknown packs action: ${action}` : 'Missing packs action.');
    }
  },
};
