import { useId } from 'react';
import { cn } from '@/lib/cn';
import { PRODUCT_NAME } from '@common/product';

export function LogoMark({ className }: { className?: string }) {
  // Each copy needs its own gradient id: a hidden copy (the sidebar on phones) would hide a shared one.
  const gradientId = useId();
  return (
    <svg viewBox="0 0 64 64" aria-hidden className={cn('size-8 shrink-0', className)}>
      <defs>
        <linearGradient id={gradientId} x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#7c5cff" />
          <stop offset="1" stopColor="#ff6fa8" />
        </linearGradient>
      </defs>
      <rect width="64" height="64" rx="16" fill={`url(#${gradientId})`} />
      <path d="M22 16v32h22" fill="none" stroke="#fff" strokeWidth="7" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function Logo({ className, showText = true }: { className?: string; showText?: boolean }) {
  return (
    <span className={cn('inline-flex items-center gap-2.5', className)}>
      <LogoMark />
      {showText && <span className="text-lg font-bold tracking-tight text-fg">{PRODUCT_NAME}</span>}
    </span>
  );
}
