import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.ts';
import { creditsRepository } from '../repositories/credits.repository.ts';
import { usersRepository, type AccountSelector, type AccountSummary } from '../repositories/users.repository.ts';
import { ACCOUNT_ARGUMENT, accountLabel, describeAccount, named, takeAccountSelector } from './account-selector.ts';
import { EXIT, type AdminCommand, type AdminContext, type AdminServices } from './command.ts';

const USAGE = [
  'credits show <email>',
  'credits grant <email> <amount> --reason "…"',
  'credits remove <email> <amount> --reason "…"',
  '  (for <email>, --id <users.id> or --clerk-id <Clerk user id> names one account of several at an address)',
];

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

/**
 * The one account the selector names, or an exit code after saying why not. An address is matched against what was
 * verified, never the browser-written users.email (anyone may type anyone's address there in hosted mode).
 */
async function findAccount(ctx: AdminContext, services: AdminServices, selector: AccountSelector): Promise<AccountSummary | number> {
  const accounts = await usersRepository.accountsSelected(services.db, selector);
  if (accounts.length === 0) {
    const why = 'email' in selector ? ' (never signed up, erased, or the address was never verified)' : '';
    ctx.err(`No account has ${named(selector)}${why}.`);
    return EXIT.failed;
  }
  if (accounts.length > 1) {
    ctx.err(`${accounts.length} accounts have ${named(selector)}. Nothing was changed. Name one of them by its id:`);
    for (const account of accounts) ctx.err(`  ${account.id}  ${describeAccount(account)}  (--id ${account.id})`);
    return EXIT.dataError;
  }
  return accounts[0];
}

async function show(ctx: AdminContext, services: AdminServices, selector: AccountSelector): Promise<number> {
  const account = await findAccount(ctx, services, selector);
  if (typeof account === 'number') return account;
  const user = (await usersRepository.findBy(services.db, { id: account.id }))!;
  const ledger = await creditsRepository.latestLedger(services.db, user.id, 10);
  ctx.out(`${accountLabel(account)}: ${user.credits} credits (ledger sum ${await services.credits.ledgerSum(user.id)})`);
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

/** `npm run admin -- credits …`: look at, grant or remove a user's credits, always with a ledger row. */
export const creditsCommand: AdminCommand = {
  summary: "show, grant or remove a user's credits (every change is a ledger row with your reason)",
  usage: USAGE,

  async run(args, ctx) {
    const { positional, reason } = parseArgs(args);
    const [action, ...afterAction] = positional;
    const usage = (message: string) => {
      ctx.err(message);
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    };
    const taken = takeAccountSelector(afterAction);
    if (typeof taken === 'string') return usage(taken);
    const [amountText, ...extra] = taken?.rest ?? [];

    if (action === 'show') {
      if (!taken || amountText) return usage(`Usage: credits show ${ACCOUNT_ARGUMENT}`);
      return show(ctx, await ctx.open(), taken.selector);
    }
    if (action !== 'grant' && action !== 'remove') return usage(action ? `Unknown credits action: ${action}` : 'Missing credits action.');
    if (!taken || !amountText || extra.length) return usage(`Usage: credits ${action} <email> <amount> --reason "…"`);
    if (!/^[1-9][0-9]*$/.test(amountText) || Number(amountText) > 1_000_000_000) {
      return usage(`The amount must be a whole number of credits above 0 (got ${amountText}).`);
    }
    if (!reason) return usage('A --reason "…" is required: it is written to the ledger.');

    const amount = Number(amountText);
    const services = await ctx.open();
    const account = await findAccount(ctx, services, taken.selector);
    if (typeof account === 'number') return account;
    try {
      const result = await services.credits.apply({
        userId: account.id,
        delta: action === 'grant' ? amount : -amount,
        kind: action === 'grant' ? 'grant' : 'adjustment',
        reason: `Operator: ${reason}`,
        idempotencyKey: `admin:${randomUUID()}`,
      });
      ctx.out(
        `${action === 'grant' ? 'Granted' : 'Removed'} ${amount} credits ${action === 'grant' ? 'to' : 'from'} ${accountLabel(account)}. Balance: ${result.balance}.`,
      );
      return EXIT.ok;
    } catch (e) {
      if (e instanceof AppError && e.code === 'insufficient_credits') {
        const balance = await services.credits.balance(account.id);
        ctx.err(`Cannot remove ${amount} credits: ${accountLabel(account)} has ${balance}. The balance never goes below zero.`);
        return EXIT.failed;
      }
      throw e;
    }
  },
};
