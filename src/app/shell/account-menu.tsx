import type { ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Coins, CreditCard, LogOut, UserRound } from 'lucide-react';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { profileLabel } from './nav-items';

export interface AccountMenuProps {
  /** The avatar button that opens the menu. */
  trigger: ReactNode;
  credits: number;
  fullName: string | null;
  email: string | null;
  onSignOut: () => void;
  side?: 'top' | 'right' | 'bottom';
  align?: 'start' | 'end';
  onOpenChange?: (open: boolean) => void;
}

/** The avatar's menu: the account's pages and Sign out, in reach from every page of the app. */
export function AccountMenu({ trigger, credits, fullName, email, onSignOut, side, align, onOpenChange }: AccountMenuProps) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return (
    <DropdownMenu
      label="Account"
      side={side}
      align={align}
      onOpenChange={onOpenChange}
      trigger={trigger}
      header={
        <div className="min-w-0 max-w-64">
          <p className="truncate text-sm font-semibold text-fg">{profileLabel(fullName)}</p>
          {email && <p className="truncate text-xs text-fg-muted">{email}</p>}
        </div>
      }
      items={[
        {
          label: 'Profile',
          icon: <UserRound className="size-4" aria-hidden />,
          onSelect: () => navigate('/app/profile'),
          current: pathname === '/app/profile',
        },
        {
          label: (
            <>
              Credits <span className="tabular-nums text-fg-muted">· {credits.toLocaleString('en-US')}</span>
            </>
          ),
          icon: <Coins className="size-4 text-warning" aria-hidden />,
          onSelect: () => navigate('/app/credits'),
          current: pathname === '/app/credits',
        },
        {
          label: 'Subscription',
          icon: <CreditCard className="size-4" aria-hidden />,
          onSelect: () => navigate('/app/subscription'),
          current: pathname === '/app/subscription',
        },
        { label: 'Sign out', icon: <LogOut className="size-4" aria-hidden />, onSelect: onSignOut, danger: true },
      ]}
    />
  );
}
