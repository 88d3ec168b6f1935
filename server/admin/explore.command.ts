import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { EXPLORE_VOCABULARY } from '@common/library.ts';
import { AppError } from '../domain/errors.ts';
import type { ExploreAttributes } from '../services/explore.service.ts';
import { EXIT, type AdminCommand, type AdminContext } from './command.ts';

const USAGE = [
  'explore list [--featured]',
  'explore add <image-file> --prompt "…" [--gender g] [--hair-color h] [--ethnicity e] [--style s] [--seed n] [--steps n] [--guidance x] [--featured]',
  'explore publish <generation-id> [--gender g] [--hair-color h] [--ethnicity e] [--style s] [--featured]',
  'explore feature <id>',
  'explore unfeature <id>',
  'explore remove <id>',
];

const OPTIONS = {
  prompt: { type: 'string' },
  gender: { type: 'string' },
  'hair-color': { type: 'string' },
  ethnicity: { type: 'string' },
  style: { type: 'string' },
  seed: { type: 'string' },
  steps: { type: 'string' },
  guidance: { type: 'string' },
  featured: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const attributesOf = (v: Values): ExploreAttributes => ({
  gender: v.gender,
  hair_color: v['hair-color'],
  ethnicity: v.ethnicity,
  style: v.style,
});

/** A number option, or undefined when absent; NaN when it is not a number (reported as a usage error). */
const numberOption = (text: string | undefined) =>
  text === undefined ? undefined : /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;

function usage(ctx: AdminContext, message: string): number {
  ctx.err(message);
  for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
  ctx.err('Attribute values:');
  for (const [name, values] of Object.entries(EXPLORE_VOCABULARY)) ctx.err(`  ${name.replace('_', '-')}: ${values.join(', ')}`);
  return EXIT.usage;
}

const describe = (item: {
  id: string;
  is_featured: boolean;
  gender: string | null;
  hair_color: string | null;
  ethnicity: string | null;
  style: string | null;
  prompt: string;
}) =>
  `${item.id}  ${item.is_featured ? '★' : ' '}  ${[item.gender, item.hair_color, item.ethnicity, item.style].map((v) => v ?? '-').join(' / ')}  ${item.prompt.slice(0, 60)}`;

/** `npm run admin -- explore …`: curate the community gallery. */
export const exploreCommand: AdminCommand = {
  summary: 'curate the explore gallery: add an image, publish a generation, feature, unfeature or remove an item',
  usage: USAGE,

  async run(args, ctx) {
    let parsed: { values: Values; positionals: string[] };
    try {
      parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (e) {
      return usage(ctx, (e as Error).message);
    }
    const { values, positionals } = parsed;
    const [action, target, ...extra] = positionals;
    if (extra.length) return usage(ctx, `Unexpected arguments: ${extra.join(' ')}`);

    try {
      switch (action) {
        case 'list': {
          const { explore } = await ctx.open();
          const items = values.featured ? await explore.featured() : (await explore.list({ page: 1 })).items;
          for (const item of items) ctx.out(describe(item));
          if (!items.length) ctx.out('The explore gallery is empty.');
          return EXIT.ok;
        }
        case 'add': {
          if (!target || !values.prompt) return usage(ctx, 'Usage: explore add <image-file> --prompt "…" [attributes]');
          const steps = numberOption(values.steps);
          const guidance = numberOption(values.guidance);
          if (Number.isNaN(steps) || Number.isNaN(guidance)) return usage(ctx, '--steps and --guidance must be numbers.');
          if (values.seed !== undefined && !/^\d+$/.test(values.seed)) return usage(ctx, '--seed must be a whole number.');
          const image = await readFile(target).catch(() => null);
          if (!image) {
            ctx.err(`Cannot read the file ${target}.`);
            return EXIT.failed;
          }
          const { explore } = await ctx.open();
          const item = await explore.add(image, {
            prompt: values.prompt,
            ...attributesOf(values),
            seed: values.seed ?? null,
            numInferenceSteps: steps ?? null,
            guidanceScale: guidance ?? null,
            featured: values.featured ?? false,
          });
          ctx.out(`Added explore item ${item.id}${item.is_featured ? ' (featured)' : ''}.`);
          return EXIT.ok;
        }
        case 'publish': {
          if (!target) return usage(ctx, 'Usage: explore publish <generation-id> [attributes]');
          const { explore } = await ctx.open();
          const item = await explore.publish(target, { ...attributesOf(values), featured: values.featured });
          ctx.out(`Published generation ${target} as explore item ${item.id}.`);
          return EXIT.ok;
        }
        case 'feature':
        case 'unfeature': {
          if (!target) return usage(ctx, `Usage: explore ${action} <id>`);
          const { explore } = await ctx.open();
          await explore.setFeatured(target, action === 'feature');
          ctx.out(`Explore item ${target} is ${action === 'feature' ? 'now featured' : 'no longer featured'}.`);
          return EXIT.ok;
        }
        case 'remove': {
          if (!target) return usage(ctx, 'Usage: explore remove <id>');
          const { explore } = await ctx.open();
          await explore.remove(target);
          ctx.out(`Removed explore item ${target}.`);
          return EXIT.ok;
        }
        default:
          return usage(ctx, action ? `Unknown explore action: ${action}` : 'Missing explore action.');
      }
    } catch (e) {
      // Known failures (bad attribute, no such item) are the operator's to fix; say so without a stack.
      if (e instanceof AppError) {
        ctx.err(e.message);
        return e.status === 400 ? EXIT.usage : EXIT.failed;
      }
      throw e;
    }
  },
};
