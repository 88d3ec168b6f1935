import { Outlet } from 'react-router';
import { SiteFooter } from '@/features/site/site-footer';
import { SiteHeader } from '@/features/site/site-header';

export function PublicLayout() {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      <main className="flex-1">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}
