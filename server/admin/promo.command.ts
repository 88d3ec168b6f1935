import { AppError } from '../domain/errors.ts';
import { createPromoCodesService } from '../services/promo-codes.service.ts';
import { EXIT, type AdminCommand, type AdminContext } from './command.ts';

const USAGE = [
  'promo create <CODE> --credits <n> --max <redemptions> [--expires <YYYY-MM-DD | ISO time>] [--account <users.id>]',
  'promo list',
  'promo disable <CODE>',
];

/** `--name value` or `--name=value` options, and the positional arguments. */
function parseOptions(args: string[]): { positional: string[]; options: Map<string, string> } {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) positional.push(arg);
    else if (arg.includes('=')) options.set(arg.slice(2, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1));
    else options.set(arg.slice(2), args[++i] ?? '');
  }
  return { positional, options };
}

/** A whole number as the operator typed it: digits only (no 1e3, 10.5, -5 or 0x10). */
const wholeNumber = (text: string | undefined) => (text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN);

function describe(row: {
  code: string;
  credits: number;
  redeemedCount: number;
  maxRedemptions: number;
  expiresAt: Date | null;
  accountId: string | null;
  disabledAt: Date | null;
}) {
  const parts = [
    `${row.code}: ${row.credits.toLocaleString('en-US')} credits`,
    `${row.redeemedCount}/${row.maxRedemptions} redeemed`,
    row.expiresAt ? `expires ${row.expiresAt.toISOString()}` : 'no expiry',
    row.accountId ? `only account ${row.accountId}` : 'any account',
  ];
  if (row.disabledAt) parts.push(`DISABLED ${row.disabledAt.toISOString()}`);
  return parts.join(', ');
}

/** `npm run admin -- promo …`: promo codes an operator gives out (issue 50 item 3). */
export const promoCommand: AdminCommand = {
  summary: 'create, list and disable promo codes that grant credits',
  usage: USAGE,
  async run(args: string[], ctx: AdminContext): Promise<number> {
    const [action, ...rest] = args;
    const { positional, options } = parseOptions(rest);
    const usage = (why: string) => {
      ctx.err(why);
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    };
    if (action === 'create') {
      if (positional.length !== 1) return usage('Name one code to create.');
      const credits = wholeNumber(options.get('credits'));
      const max = wholeNumber(options.get('max'));
      if (Number.isNaN(credits)) return usage('--credits must be a whole number of credits, such as 500.');
      if (Number.isNaN(max)) return usage('--max must be a whole number of redemptions, such as 100.');
      const expires = options.get('expires');
      const expiresAt = expires ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T23:59:59Z` : expires) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) return usage('--expires must be a date (YYYY-MM-DD) or an ISO time.');
      const account = options.get('account') ?? null;
      if (account !== null && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(account))
        return usage('--account must be a users.id (see `npm run admin -- users`).');
      return withService(ctx, async (promo) => {
        const row = await promo.create({ code: positional[0], credits, maxRedemptions: max, expiresAt, accountId: account });
        ctx.out(`Created ${describe(row)}.`);
      });
    }
    if (action === 'list') {
      return withService(ctx, async (promo) => {
        const rows = await promo.list();
        if (rows.length === 0) ctx.out('No promo codes yet.');
        for (const row of rows) ctx.out(describe(row));
      });
    }
    if (action === 'disable') {
      if (positional.length !== 1) return usage('Name one code to disable.');
      return withService(ctx, async (promo) => {
        const row = await promo.disable(positional[0]);
        ctx.out(`Disabled ${describe(row)}.`);
      });
    }
    return usage(action ? `Unknown promo action ${action}.` : 'Say what to do with promo codes.');
  },
};

async function withService(ctx: AdminContext, work: (promo: ReturnType<typeof createPromoCodesService>) => Promise<void>): Promise<number> {
  const services = await ctx.open();
  try {
    await work(createPromoCodesService({ db: services.db, credits: services.credits }));
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.err(err.message);
    return err.status === 404 ? EXIT.failed : EXIT.dataError;
  }
}
