import type { AccountSelector, ErasureReport } from '../services/account-erasure.service.ts';
import type { AccountSummary } from '../repositories/users.repository.ts';
import { EXIT, type AdminCommand } from './command.ts';

const USAGE = ['users erase <email>', 'users erase --id <users.id>', 'users erase --clerk-id <Clerk user id>'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The report as lines an operator reads (and may paste into a ticket). */
function describe(report: ErasureReport): string[] {
  return [
    `  ${plural(report.files, 'stored file')}`,
    `  ${plural(report.generations, 'generation')}`,
    `  ${plural(report.trainings, 'character training')}`,
    `  ${plural(report.uploads, 'upload')}`,
    `  ${plural(report.generationJobs, 'generation job')}`,
    `  ${plural(report.exploreItems, 'explore gallery item')} published from their generations`,
    `  ${plural(report.creditsForfeited, 'unused credit')} written off in the ledger`,
  ];
}

/** What an account is, so an operator can tell two apart. */
function what(account: AccountSummary): string {
  const address = account.verifiedEmail ?? 'address not verified yet';
  const since = account.createdAt.toISOString().slice(0, 10);
  return account.kind === 'built-in'
    ? `built-in account, sign-in address ${address}, since ${since}`
    : `Clerk user ${account.clerkId}, verified address ${address}, since ${since}`;
}

/** `users erase <email>`, `users erase --id <id>`, `users erase --clerk-id <id>`; undefined when malformed. */
function selectorOf(args: string[]): AccountSelector | string | undefined {
  if (args.length === 1 && !args[0].startsWith('--')) return args[0].trim() ? { email: args[0] } : undefined;
  if (args.length !== 2) return undefined;
  const [flag, value] = args;
  if (flag === '--id')
    return UUID.test(value)
      ? { id: value.toLowerCase() }
      : `--id takes a users.id (a UUID such as 6f1f7c1e-0000-4000-8000-00000000000a), not "${value}".`;
  if (flag === '--clerk-id') return value.trim() ? { clerkId: value.trim() } : undefined;
  return undefined;
}

const named = (selector: AccountSelector) =>
  'email' in selector
    ? `the verified address ${selector.email}`
    : 'id' in selector
      ? `the id ${selector.id}`
      : `the Clerk user id ${selector.clerkId}`;

/** `npm run admin -- users …`: act on a person's account. */
export const usersCommand: AdminCommand = {
  summary: "erase a person's files, generations, trainings and uploads (the credit ledger stays, anonymised)",
  usage: USAGE,

  async run(args, ctx) {
    const [action, ...rest] = args;
    const selector = action === 'erase' ? selectorOf(rest) : undefined;
    if (typeof selector !== 'object') {
      ctx.err(
        action && action !== 'erase'
          ? `Unknown users action: ${action}`
          : (selector ?? 'Usage: users erase <email> | --id <users.id> | --clerk-id <id>'),
      );
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    }
    const { erasure } = await ctx.open();
    const result = await erasure.eraseSelected(selector);
    if (result.outcome === 'none') {
      // Safe to run again: once erased, the account no longer has its address.
      const why = 'email' in selector ? ' (already erased, never signed up, or the address was never verified)' : '';
      ctx.out(`No account has ${named(selector)}${why}. Nothing was removed.`);
      return EXIT.ok;
    }
    if (result.outcome === 'ambiguous') {
      ctx.err(`${result.accounts.length} accounts have ${named(selector)}. Nothing was removed. Erase one of them by its id:`);
      for (const account of result.accounts)
        ctx.err(`  ${account.id}  ${what(account)}  (npm run admin -- users erase --id ${account.id})`);
      return EXIT.dataError;
    }
    const { account, report } = result;
    ctx.out(`Erased the account ${account.id} (${'email' in selector ? selector.email : what(account)}). Removed:`);
    for (const line of describe(report)) ctx.out(line);
    ctx.out('The users row stays without email or name, with its credit ledger, for accounting.');
    return EXIT.ok;
  },
};
