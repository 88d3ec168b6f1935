/**
 * One rule for every string a person or a client sends that the product stores or looks up: Postgres text
 * cannot hold NUL, and a lone UTF-16 surrogate has no UTF-8 form, so both are refused up front (400 naming
 * the field) instead of failing in the database. And one length limit per stored string, shared by the
 * server's schemas and the SPA's inputs (maxLength), so both sides agree.
 */
import { z } from 'zod';

export const TEXT_LIMITS = {
  /** The generation prompt (the create-image textarea). */
  prompt: 2000,
  /** A LoRA path or any product media URL: a `/media/<key>` address or a provider URL. */
  url: 2048,
  /** A character's name on the training form. */
  characterName: 80,
  /** The trigger word (a–z only). */
  triggerWord: 64,
  /** A person's full name at sign-up. */
  personName: 100,
  /** RFC 5321 caps an address at 254 characters. */
  email: 254,
  /** Passwords: long passphrases are welcome, but hashing megabytes is not. */
  passwordMin: 8,
  passwordMax: 128,
  /** Ids a client sends back (plan ids, user ids, payment-provider customer ids). */
  id: 128,
} as const;

/** NUL, or a surrogate that is not half of a pair (with the u flag a well-formed pair is one code point). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** Whether Postgres can store this string as text: no NUL and no unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

export const UNSTORABLE_TEXT_MESSAGE = 'contains characters that cannot be stored (NUL or an unpaired surrogate)';

/** A string field under the shared rule, at most `max` characters. */
export function storableText(max: number) {
  return z.string({ error: 'must be text' }).max(max, `must be at most ${max} characters`).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
}

/** 'about N min left' from a minute up, 'about S s left' under it: how every estimate of remaining work reads. */
export function timeLeftText(ms: number): string {
  return ms >= 60_000 ? `about ${Math.ceil(ms / 60_000)} min left` : `about ${Math.max(1, Math.ceil(ms / 1000))} s left`;
}
