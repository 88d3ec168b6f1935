import type { ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Coins, Menu, UserRound } from 'lucide-react';
import { Avatar } from '@/components/ui/avatar';
import { AccountMenu } from './account-menu';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { Logo } from '@/components/logo';
import { NAV_ITEMS, creditsLabel, profileLabel } from './nav-items';

/** Under 768px: a top bar with the logo, the balance and a drop-down menu of every section. */
export function MobileTopBar({
  credits,
  fullName,
  email,
  imageUrl,
  onSignOut,
  below,
}: {
  credits: number;
  fullName: string | null;
  email: string | null;
  imageUrl: string | null;
  /** The account menu's Sign out. */
  onSignOut: () => void;
  /** A row under the bar (the space switcher). */
  below?: ReactNode;
}) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const isCurrent = (to: string) => pathname === to || pathname.startsWith(`${to}/`);
  return (
    <header className="sticky top-0 z-40 border-b border-border bg-bg/95 px-4 backdrop-blur md:hidden">
      <div className="flex h-14 items-center justify-between gap-2">
        <Link to="/app/create-image" aria-label="Likeness — Create Image">
          {/* Under 385px the balance and the avatar need the wordmark's room: the mark alone stays. */}
          <Logo className="max-[385px]:[&>span]:sr-only" />
        </Link>
        <div className="flex items-center gap-2">
          <Link
            to="/app/credits"
            className="flex items-center gap-1.5 whitespace-nowrap rounded-full bg-bg-muted px-3 py-1 text-xs font-semibold tabular-nums text-fg"
          >
            <Coins className="size-3.5 shrink-0 text-warning" aria-hidden />
            {creditsLabel(credits)}
          </Link>
          <AccountMenu
            credits={credits}
            fullName={fullName}
            email={email}
            onSignOut={onSignOut}
            align="end"
            trigger={
              <button
                type="button"
                aria-label={`Account menu: ${profileLabel(fullName)}`}
                className="grid size-10 shrink-0 place-items-center rounded-full hover:bg-bg-muted data-[state=open]:bg-bg-muted"
              >
                <Avatar src={imageUrl} name={fullName} email={email} className="size-7" />
              </button>
            }
          />
          <DropdownMenu
            label="App menu"
            trigger={
              <button type="button" aria-label="Open menu" className="rounded-md p-2 text-fg hover:bg-bg-muted">
                <Menu className="size-5" />
              </button>
            }
            items={[
              ...NAV_ITEMS.map(({ to, label, icon: Icon }) => ({
                label,
                icon: <Icon className="size-4" />,
                onSelect: () => navigate(to),
                current: isCurrent(to),
              })),
              {
                label: creditsLabel(credits),
                icon: <Coins className="size-4" />,
                onSelect: () => navigate('/app/subscription'),
                current: isCurrent('/app/subscription'),
              },
              {
                label: profileLabel(fullName),
                current: isCurrent('/app/profile'),
                icon:
                  imageUrl || fullName || email ? (
                    <Avatar src={imageUrl} name={fullName} email={email} className="size-4 shrink-0" />
                  ) : (
                    <UserRound className="size-4" />
                  ),
                onSelect: () => navigate('/app/profile'),
              },
            ]}
          />
        </div>
      </div>
      {below && <div className="-mt-1 flex pb-1.5">{below}</div>}
    </header>
  );
}
