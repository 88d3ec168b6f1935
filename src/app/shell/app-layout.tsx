import { Outlet } from 'react-router';
import { useMe, useSignOut } from '@/session/api';
import { VerifyEmailBanner } from '@/features/auth/components/verify-email-banner';
import { useLiveUserRecord } from '@/session/use-realtime';
import { RunningShoots } from '@/features/photo-shoots/components/running-shoots';
import { LowBalanceNotice } from '@/features/credits/components/low-balance-notice';
import { MobileTopBar } from './mobile-top-bar';
import { Sidebar } from './sidebar';

/** The signed-in app: sidebar on desktop, top bar on phones, live balance. */
export function AppLayout() {
  const me = useMe();
  useLiveUserRecord();
  const signOut = useSignOut();
  const who = { credits: me.credits, fullName: me.full_name, email: me.email, imageUrl: me.image_url, onSignOut: () => void signOut() };
  return (
    <div className="min-h-dvh bg-bg-subtle">
      <Sidebar {...who} above={(open) => <RunningShoots variant="sidebar" open={open} />} />
      <MobileTopBar {...who} />
      <RunningShoots variant="strip" />
      <main className="min-w-0 md:pl-16">
        <div className="mx-auto w-full max-w-[1400px] px-4 py-6 md:px-8 md:py-8">
          <VerifyEmailBanner />
          <LowBalanceNotice />
          <Outlet />
        </div>
      </main>
    </div>
  );
}
