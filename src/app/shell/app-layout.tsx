import { Outlet } from 'react-router';
import { useMe, useSignOut } from '@/session/api';
import { VerifyEmailBanner } from '@/features/auth/components/verify-email-banner';
import { useLiveUserRecord } from '@/session/use-realtime';
import { spaceCredits, useSpaceGuard } from '@/session/space';
import { RunningShoots } from '@/features/photo-shoots/components/running-shoots';
import { LowBalanceNotice } from '@/features/credits/components/low-balance-notice';
import { MobileTopBar } from './mobile-top-bar';
import { Sidebar } from './sidebar';
import { SpaceSwitcher } from './space-switcher';

/**
 * The signed-in app: sidebar on desktop, top bar on phones, live balance — the active space's (issue 49): the
 * team's in a team space. A switch of space shows every page afresh (its lists are read in the new space).
 */
export function AppLayout() {
  const me = useMe();
  useLiveUserRecord();
  const space = useSpaceGuard();
  const signOut = useSignOut();
  const who = {
    credits: spaceCredits(space, me),
    fullName: me.full_name,
    email: me.email,
    imageUrl: me.image_url,
    onSignOut: () => void signOut(),
  };
  return (
    <div className="min-h-dvh bg-bg-subtle">
      <Sidebar
        {...who}
        top={(open, onMenuOpenChange) => <SpaceSwitcher space={space} variant="sidebar" open={open} onOpenChange={onMenuOpenChange} />}
        above={(open) => <RunningShoots variant="sidebar" open={open} />}
      />
      <MobileTopBar {...who} below={(space.teams.length > 0 || space.teamId) && <SpaceSwitcher space={space} variant="bar" />} />
      <RunningShoots variant="strip" />
      <main className="min-w-0 md:pl-16">
        <div className="mx-auto w-full max-w-[1400px] px-4 py-6 md:px-8 md:py-8">
          <VerifyEmailBanner />
          {/* The notice speaks of the person's own balance: a team's is the lead's to top up. */}
          {!space.teamId && <LowBalanceNotice />}
          <Outlet key={space.teamId ?? 'personal'} />
        </div>
      </main>
    </div>
  );
}
