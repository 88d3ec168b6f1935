import { Outlet } from 'react-router';
import { SiteFooter } from '@/features/site/components/site-footer';
import { SiteHeader } from '@/features/site/components/site-header';

export function PublicLayout() {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      {/* At least one screen tall (less the 4rem header): while a page's code loads, the footer waits below the
          fold instead of jumping down when the page appears (no layout shift). */}
      <main className="min-h-[calc(100dvh-4rem)] flex-1">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}
