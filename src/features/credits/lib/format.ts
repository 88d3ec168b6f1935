import type { SpendEntry } from '@common/credits';

const number = new Intl.NumberFormat('en-US');
const signed = new Intl.NumberFormat('en-US', { signDisplay: 'exceptZero' });

export const formatCredits = (n: number) => number.format(n);
/** '+500', '−10' (a true minus sign, read as 'minus'), '0'. */
export const formatAmount = (n: number) => signed.format(n).replace('-', '−');

const when = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' });
export const formatWhen = (iso: string) => when.format(new Date(iso));

// Per-day keys are UTC days ('2026-11-29'): shown as that day whatever the viewer's zone.
const dayLong = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
const dayShort = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
export const formatDay = (day: string) => dayLong.format(new Date(`${day}T00:00:00Z`));
export const formatDayShort = (day: string) => dayShort.format(new Date(`${day}T00:00:00Z`));

const ACTION_WORDS: Record<SpendEntry, string> = {
  generation: 'image',
  shoot: 'photo shoot',
  upscale: 'upscale',
  edit: 'edit',
  training: 'character training',
  prompt: 'prompt extraction',
};
/** A spending kind as 'not enough for another …' says it. */
export const actionWords = (kind: SpendEntry) => ACTION_WORDS[kind];
