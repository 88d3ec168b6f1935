import { randomUUID } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import { creditLedger, users } from '../db/schema.ts';
import { AppError } from '../domain/errors.ts';
import { EXIT, type AdminCommand, type AdminContext, type AdminServices } from './command.ts';

const USAGE = ['credits show <email>', 'credits grant <email> <amount> --reason "…"', 'credits remove <email> <amount> --reason "…"'];

/** Splits `--reason "…"` (or `--reason=…`) from the positional arguments. */
function parseArgs(args: string[]): { positional: string[]; reason?: string } {
  const positional: string[] = [];
  let reason: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--reason') reason = args[++i];
    else if (arg.startsWith('--reason=')) reason = arg.slice('--reason='.length);
    else positional.push(arg);
  }
  return { positional, reason: reason?.trim() || undefined };
}

async function findUser(services: AdminServices, email: string) {
  const [row] = await services.db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`)
    .limit(1);
  return row;
}

async function show(ctx: AdminContext, services: AdminServices, email: string): Promise<number> {
  const user = await findUser(services, email);
  if (!user) return notFound(ctx, email);
  const ledger = await services.db
    .select()
    .from(creditLedger)
    .where(eq(creditLedger.userId, user.id))
    .orderBy(desc(creditLedger.createdAt))
    .limit(10);
  ctx.out(`${user.email}: ${user.credits} credits (ledger sum ${await services.credits.ledgerSum(user.id)})`);
  ctx.out(`Subscription: ${user.subscriptionStatus === 'active' ? `${user.subscriptionPlan} (active)` : 'Free Plan'}`);
  if (ledger.length) ctx.out('Latest ledger entries:');
  for (const row of ledger) {
    const delta = row.delta > 0 ? `+${row.delta}` : String(row.delta);
    ctx.out(
      `  ${row.createdAt.toISOString()}  ${delta.padStart(7)}  → ${String(row.balanceAfter).padStart(7)}  ${row.kind}: ${row.reason}`,
    );
  }
  return EXIT.ok;
}

function notFound(ctx: AdminContext, email: string): number {
  ctx.err(`No user with the email ${email}.`);
  return EXIT.failed;
}

/** `npm run admin -- credits …`: look at, grant or remove a user's credits, always with a ledger row. */
export const creditsCommand: AdminCommand = {
  summary: "show, grant or remove a user's credits (every change is a ledger row with your reason)",
  usage: USAGE,

  async run(args, ctx) {
    const { positional, reason } = parseArgs(args);
    const [action, email, amountText, ...extra] = positional;
    const usage = (message: string) => {
      ctx.err(message);
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    };

    if (action === 'show') {
      if (!email || amountText) return usage('Usage: credits show <email>');
      return show(ctx, await ctx.open(), email);
    }
    if (action !== 'grant' && action !== 'remove') return usage(action ? `Unknown credits action: ${action}` : 'Missing credits action.');
    if (!email || !amountText || extra.length) return usage(`Usage: credits ${action} <email> <amount> --reason "…"`);
    if (!/^[1-9][0-9]*$/.test(amountText) || Number(amountText) > 1_000_000_000) {
      return usage(`The amount must be a whole number of credits above 0 (got ${amountText}).`);
    }
    if (!reason) return usage('A --reason "…" is required: it is written to the ledger.');

    const amount = Number(amountText);
    const services = await ctx.open();
    const user = await findUser(services, email);
    if (!user) return notFound(ctx, email);
    try {
      const result = await services.credits.apply({
        userId: user.id,
        delta: action === 'grant' ? amount : -amount,
        kind: action === 'grant' ? 'grant' : 'adjustment',
        reason: `Operator: ${reason}`,
        idempotencyKey: `admin:${randomUUID()}`,
      });
      ctx.out(
        `${action === 'grant' ? 'Granted' : 'Removed'} ${amount} credits ${action === 'grant' ? 'to' : 'from'} ${user.email}. Balance: ${result.balance}.`,
      );
      return EXIT.ok;
    } catch (e) {
      if (e instanceof AppError && e.code === 'insufficient_credits') {
        ctx.err(`Cannot remove ${amount} credits: ${user.email} has ${user.credits}. The balance never goes below zero.`);
        return EXIT.failed;
      }
      throw e;
    }
  },
};
