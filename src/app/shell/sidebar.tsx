import { useState, type ReactNode } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { motion } from 'framer-motion';
import { Coins } from 'lucide-react';
import { LAYOUT } from '@common/product';
import { Avatar } from '@/components/ui/avatar';
import { LogoMark } from '@/components/logo';
import { cn } from '@/lib/cn';
import { AccountMenu } from './account-menu';
import { NAV_ITEMS, compactCredits, creditsLabel, profileLabel } from './nav-items';

export interface SidebarProps {
  credits: number;
  fullName: string | null;
  email: string | null;
  imageUrl: string | null;
  /** Controlled open state; held internally when omitted. */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  animate?: boolean;
  /** What sits above the balance (the running shoots), told whether the sidebar is open. */
  above?: (open: boolean) => ReactNode;
  /**
   * What sits under the logo (the space switcher), told whether the sidebar is open and given the callback that
   * keeps it open while a menu of its is (as the account menu does).
   */
  top?: (open: boolean, onMenuOpenChange: (open: boolean) => void) => ReactNode;
  /** The account menu's Sign out. */
  onSignOut: () => void;
}

const itemClasses = ({ isActive }: { isActive: boolean }) =>
  cn(
    'flex h-10 items-center gap-3 rounded-md px-[11px] text-sm font-medium transition-colors',
    isActive ? 'bg-brand-soft text-brand' : 'text-fg-muted hover:bg-bg-muted hover:text-fg',
  );

/** Desktop sidebar: 64px closed, 240px open; opens while the pointer is over it (product §2). */
export function Sidebar({
  credits,
  fullName,
  email,
  imageUrl,
  open: openProp,
  onOpenChange,
  animate = true,
  above,
  top,
  onSignOut,
}: SidebarProps) {
  const [openState, setOpenState] = useState(false);
  // While the account menu is open the sidebar stays open under it, although the pointer is in the menu.
  const [menuOpen, setMenuOpen] = useState(false);
  const open = (openProp ?? openState) || menuOpen;
  const setOpen = (value: boolean) => {
    if (openProp === undefined) setOpenState(value);
    onOpenChange?.(value);
  };
  const { pathname } = useLocation();
  const label = (text: string) => (
    <span className={cn('truncate transition-opacity duration-200', open ? 'opacity-100' : 'opacity-0')}>{text}</span>
  );

  return (
    <motion.aside
      data-testid="sidebar"
      data-open={open}
      aria-label="Main navigation"
      onPointerEnter={() => setOpen(true)}
      onPointerLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={(e) => !e.currentTarget.contains(e.relatedTarget as Node) && setOpen(false)}
      initial={false}
      animate={{ width: open ? LAYOUT.sidebarOpenPx : LAYOUT.sidebarClosedPx }}
      transition={animate ? { duration: LAYOUT.sidebarTransitionS, ease: 'easeInOut' } : { duration: 0 }}
      // Open, it lies over the page: a shadow makes it read as a layer.
      className={cn(
        'fixed inset-y-0 left-0 z-40 hidden flex-col overflow-hidden border-r border-border bg-bg px-2 py-4 transition-shadow duration-300 md:flex',
        open && 'shadow-pop',
      )}
    >
      <Link to="/app/create-image" className="mb-6 flex items-center gap-3 px-2" aria-label="Likeness — Create Image">
        <LogoMark />
        {label('Likeness')}
      </Link>
      {top?.(open, setMenuOpen)}
      <nav className="flex flex-1 flex-col gap-1">
        {NAV_ITEMS.map(({ to, label: text, icon: Icon }) => (
          <NavLink key={to} to={to} className={itemClasses} title={open ? undefined : text}>
            <Icon className="size-[18px] shrink-0" aria-hidden />
            {label(text)}
          </NavLink>
        ))}
      </nav>
      {above?.(open)}
      <div className="flex flex-col gap-1 border-t border-border pt-3">
        <NavLink to="/app/credits" className={(s) => cn(itemClasses(s), 'h-12')} title={open ? undefined : creditsLabel(credits)}>
          {/* Closed, the balance shows compactly under the coin; open, the full '{n} Credits' beside it. The
              compact number is hidden from screen readers, which read the full label in both states. */}
          <span className="relative flex size-[18px] shrink-0 justify-center">
            <Coins
              className={cn('size-[18px] text-warning transition-transform duration-300', open ? 'translate-y-0' : '-translate-y-[7px]')}
              aria-hidden
            />
            <span
              aria-hidden
              data-testid="sidebar-credits-compact"
              className={cn(
                'absolute top-[13px] whitespace-nowrap text-[10px] font-semibold leading-none tabular-nums text-fg transition-opacity duration-200',
                open ? 'opacity-0' : 'opacity-100',
              )}
            >
              {compactCredits(credits)}
            </span>
          </span>
          {label(creditsLabel(credits))}
        </NavLink>
        <AccountMenu
          credits={credits}
          fullName={fullName}
          email={email}
          onSignOut={onSignOut}
          side="right"
          align="end"
          onOpenChange={setMenuOpen}
          trigger={
            <button
              type="button"
              className={cn(
                itemClasses({ isActive: pathname === '/app/profile' }),
                'h-12 px-[7px] text-left data-[state=open]:bg-bg-muted data-[state=open]:text-fg',
              )}
              title={open ? undefined : profileLabel(fullName)}
              aria-label={`Account menu: ${profileLabel(fullName)}`}
            >
              <Avatar src={imageUrl} name={fullName} email={email} className="size-[26px] shrink-0" />
              {label(profileLabel(fullName))}
            </button>
          }
        />
      </div>
    </motion.aside>
  );
}
