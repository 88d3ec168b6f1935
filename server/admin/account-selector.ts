import { isUuid } from '@common/ids.ts';
import type { AccountSelector, AccountSummary } from '../repositories/users.repository.ts';

/** How the commands name an account in their usage lines. */
export const ACCOUNT_ARGUMENT = '<email> | --id <users.id> | --clerk-id <Clerk user id>';

/**
 * `<email>`, `--id <users.id>` or `--clerk-id <id>` at the head of `args`: the selector and the arguments after it,
 * a message when the id is malformed, or undefined when nothing names an account.
 */
export function takeAccountSelector(args: string[]): { selector: AccountSelector; rest: string[] } | string | undefined {
  const [first, value, ...after] = args;
  if (first === undefined) return undefined;
  if (first === '--id') {
    if (value === undefined) return undefined;
    return isUuid(value)
      ? { selector: { id: value.toLowerCase() }, rest: after }
      : `--id takes a users.id (a UUID such as 6f1f7c1e-0000-4000-8000-00000000000a), not "${value}".`;
  }
  if (first === '--clerk-id') return value?.trim() ? { selector: { clerkId: value.trim() }, rest: after } : undefined;
  if (first.startsWith('--') || !first.trim()) return undefined;
  return { selector: { email: first }, rest: args.slice(1) };
}

/** The selector in words: "the verified address a@b.c", "the id …", "the Clerk user id …". */
export const named = (selector: AccountSelector) =>
  'email' in selector
    ? `the verified address ${selector.email}`
    : 'id' in selector
      ? `the id ${selector.id}`
      : `the Clerk user id ${selector.clerkId}`;

/** What an account is, so an operator can tell two apart. */
export function describeAccount(account: AccountSummary): string {
  const since = account.createdAt.toISOString().slice(0, 10);
  if (account.kind === 'built-in') return `built-in account, sign-in address ${account.verifiedEmail}, since ${since}`;
  const address = account.verifiedEmail ? `verified address ${account.verifiedEmail}` : 'no verified address yet';
  return `Clerk user ${account.clerkId}, ${address}, since ${since}`;
}

/** The account in a line of output: its verified address, or what it is when it has none yet. */
export const accountLabel = (account: AccountSummary) => account.verifiedEmail ?? `${account.id} (${describeAccount(account)})`;
