import { LAYOUT } from '@common/product';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** '5 minutes ago', 'yesterday', 'just now' (US English). */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return 'just now';
}

/** Dates in US English as short month, day, hour and minute (product §9). */
export const shortDateTime = (iso: string) =>
  new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** The explore card's prompt, cut at 150 characters (product §9); the full text goes in a tooltip. */
export function cutPrompt(prompt: string, limit: number = LAYOUT.explorePromptCut): string {
  return prompt.length > limit ? `${prompt.slice(0, limit).trimEnd()}…` : prompt;
}

/** 'east-asian' → 'East Asian', 'hair_color' → 'Hair Color'. */
export const labelOf = (value: string) =>
  value
    .split(/[-_\s]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
