import { useState } from 'react';
import { cn } from '@/lib/cn';

const HUES = [262, 330, 200, 160, 25, 290, 220, 10];

function initialsOf(name: string | null | undefined, email?: string | null): string {
  const source = (name?.trim() || email?.split('@')[0] || '?').replace(/[^\p{L}\p{N} ]/gu, ' ');
  const words = source.split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[words.length - 1][0] : (words[0] ?? '?').slice(0, 2);
  return letters.toUpperCase();
}

/** Generated-initials fallback: an SVG data URL with a colour picked from the name. */
export function initialsAvatarUrl(name: string | null | undefined, email?: string | null): string {
  const initials = initialsOf(name, email);
  let hash = 0;
  for (const ch of `${name ?? ''}${email ?? ''}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = HUES[hash % HUES.length];
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="hsl(${hue} 70% 52%)"/>` +
    `<text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="system-ui,sans-serif" font-size="26" font-weight="600" fill="#fff">${initials}</text></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

export function Avatar({
  src,
  name,
  email,
  className,
}: {
  src?: string | null;
  name?: string | null;
  email?: string | null;
  className?: string;
}) {
  const [failed, setFailed] = useState(false);
  const url = src && !failed ? src : initialsAvatarUrl(name, email);
  return (
    <img
      src={url}
      alt={name ? `${name}'s avatar` : 'Avatar'}
      width={40}
      height={40}
      onError={() => setFailed(true)}
      className={cn('size-10 shrink-0 rounded-full bg-bg-muted object-cover', className)}
    />
  );
}
