import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '@/components/logo';

/** The built-in account pages' frame: the logo, then one card. */
export function AuthShell({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center bg-bg-subtle px-4 py-10">
      <Link to="/" className="mb-8" aria-label="Likeness home">
        <Logo />
      </Link>
      <div className="w-full max-w-sm rounded-xl border border-border bg-bg p-6 shadow-card sm:p-8">
        <h1 className="text-2xl font-bold">{title}</h1>
        {subtitle && <p className="mt-1 text-sm text-fg-muted">{subtitle}</p>}
        {children}
      </div>
    </div>
  );
}
