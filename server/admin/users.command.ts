import type { ErasureReport } from '../services/account-erasure.service.ts';
import { EXIT, type AdminCommand } from './command.ts';

const USAGE = ['users erase <email>'];

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
    const [action, email, ...extra] = args;
    if (action !== 'erase' || !email || extra.length) {
      ctx.err(action && action !== 'erase' ? `Unknown users action: ${action}` : 'Usage: users erase <email>');
      for (const line of USAGE) ctx.err(`  npm run admin -- ${line}`);
      return EXIT.usage;
    }
    const { erasure } = await ctx.open();
    const report = await erasure.eraseByEmail(email);
    if (!report.userId) {
      // Safe to run again: once erased, the account no longer has this email.
      ctx.out(`No account uses the email ${email} (already erased, or never signed up). Nothing was removed.`);
      return EXIT.ok;
    }
    ctx.out(`Erased the account ${report.userId} (${email}). Removed:`);
    for (const line of describe(report)) ctx.out(line);
    ctx.out('The users row stays without email or name, with its credit ledger, for accounting.');
    return EXIT.ok;
  },
};
