/**
 * The sign-up password rule, shared by the server (the authority) and the sign-up form (which shows the same
 * message before sending). Strength is zxcvbn's estimate against its common-password, name and keyboard
 * dictionaries plus the person's own e-mail and name. This module carries those dictionaries (~400 KB), so
 * the SPA loads it only on the sign-up form, with a dynamic import.
 */
import * as zxcvbnCore from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import { TEXT_LIMITS } from './text.ts';

/**
 * zxcvbn score 3 means about 10^8 guesses or more: out of reach of online guessing under the sign-in limits
 * and slow to crack offline from a scrypt hash. Score 2 still admits passwords like "Summer2024!".
 */
export const MIN_PASSWORD_SCORE = 3;

export const PASSWORD_MESSAGES = {
  tooShort: `Use at least ${TEXT_LIMITS.passwordMin} characters for your password.`,
  tooLong: `Use at most ${TEXT_LIMITS.passwordMax} characters for your password.`,
  tooWeak: 'This password is too easy to guess. Try a longer one, for example three or four unrelated words.',
} as const;

const tooWeakBecause = (why: string) =>
  `This password is too easy to guess: ${why}. Try a longer one, for example three or four unrelated words.`;

/** Why a password is easy to guess, in words (zxcvbn's warning codes; its translations are not shipped). */
const WARNINGS: Record<string, string> = {
  topTen: 'it is one of the ten most common passwords',
  topHundred: 'it is one of the hundred most common passwords',
  common: 'it is a very common password',
  similarToCommon: 'it is very similar to a common password',
  wordByItself: 'a single word is easy to guess',
  namesByThemselves: 'names on their own are easy to guess',
  commonNames: 'common names are easy to guess',
  userInputs: 'it contains your name or e-mail address',
  simpleRepeat: 'repeated characters like "aaa" are easy to guess',
  extendedRepeat: 'repeated patterns like "abcabc" are easy to guess',
  sequences: 'sequences like "abc" or "6543" are easy to guess',
  straightRow: 'a straight row of keys is easy to guess',
  keyPattern: 'short keyboard patterns are easy to guess',
  recentYears: 'recent years are easy to guess',
  dates: 'dates are easy to guess',
};

type Dictionaries = { dictionary: Record<string, string[]>; adjacencyGraphs: Record<string, unknown> };
/** Node loads the packages' CommonJS builds (everything under `default`), Vite their ES modules. */
const moduleOf = <T>(namespace: T): T => (Reflect.get(namespace as object, 'default') as T | undefined) ?? namespace;
const common = moduleOf(zxcvbnCommon as unknown as Dictionaries);
const { ZxcvbnFactory } = moduleOf(zxcvbnCore);

let estimator: InstanceType<typeof ZxcvbnFactory> | undefined;

/**
 * The problem with a new password, or null when it is acceptable. `userInputs` are the person's e-mail and
 * name: a password built from them is weak whatever its length.
 */
export function passwordProblem(password: string, userInputs: string[] = []): string | null {
  if (password.length < TEXT_LIMITS.passwordMin) return PASSWORD_MESSAGES.tooShort;
  if (password.length > TEXT_LIMITS.passwordMax) return PASSWORD_MESSAGES.tooLong;
  estimator ??= new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs as never });
  // The whole value, its words, and its letters run together ("ann.lee@x.com" also as "annlee").
  const inputs = userInputs
    .flatMap((v) => [
      v,
      v.split('@')[0],
      ...v.toLowerCase().split(/[^\p{L}\p{N}]+/u),
      v
        .split('@')[0]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ''),
    ])
    .filter((v) => v.length >= 3);
  const result = estimator.check(password, inputs);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const why = result.feedback.warning ? WARNINGS[result.feedback.warning] : undefined;
  return why ? tooWeakBecause(why) : PASSWORD_MESSAGES.tooWeak;
}
