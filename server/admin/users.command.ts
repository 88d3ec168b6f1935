import type { ErasureReport } from '../services/account-erasure.service.ts';
import { describeAccount, named, takeAccountSelector } from './account-selector.ts';
import { EXIT, type AdminCommand } from './command.ts';

const USAGE = ['users erase <email>', 'users erase --id <users.id>', 'users erase --clerk-id <Clerk user id>'];

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

/** `npm run admin -- users …`: act on a person's account. */
export const usersCommand: AdminCommand = {
  summary: "erase a person's files, generations, trainings and uploads (the credit ledger stays, anonymised)",
  usage: USAGE,

  async run(args, ctx) {
    const [action, ...rest] = args;
    const taken = action === 'erase' ? takeAccountSelector(rest) : undefined;
    if (typeof taken !== 'object' || taken.rest.length) {
      ctx.err(
        action && action !== 'erase'
          ? `Unknown users action: ${action}`
          : typeof taken === 'string'
            ? taken
            : 'Usage: users erase <email> | --id <users.id> | --clerk-id <id>',
      );
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    }
    const { selector } = taken;
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
        ctx.err(`  ${account.id}  ${describeAccount(account)}  (npm run admin -- users erase --id ${account.id})`);
      return EXIT.dataError;
    }
    const { account, report } = result;
    ctx.out(`Erased the account ${account.id} (${'email' in selector ? selector.email : describeAccount(account)}). Removed:`);
    for (const line of describe(report)) ctx.out(line);
    ctx.out('The users row stays without email or name, with its credit ledger, for accounting.');
    return EXIT.ok;
  },
};
