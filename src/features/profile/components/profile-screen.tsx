import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { CalendarDays, Coins, Crown, LogOut, Mail, UserRound } from 'lucide-react';
import { activePlanId, planLabel } from '@common/plans';
import { CREDIT_COSTS } from '@common/product';
import { Avatar } from '@/components/ui/avatar';
import { Button, buttonClasses } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { displayName, joinedLabel } from '../lib/format';
import { YourDataCard, type YourDataCardProps } from './your-data-card';
import { CardTitle } from './card-title';

export interface ProfileScreenProps {
  fullName: string | null;
  email: string | null;
  imageUrl: string | null;
  joinedAt: string | null;
  credits: number;
  subscriptionStatus: string | null;
  subscriptionPlan: string | null;
  /** End of the paid period, when known. */
  currentPeriodEnd: string | null;
  onSignOut: () => void;
  /** 'Download my data' and 'Delete account'. */
  data: Omit<YourDataCardProps, 'email'>;
  /** 'Change password', for built-in accounts (Clerk has its own). */
  passwordSection?: ReactNode;
  /** 'E-mail me when a character or a photo shoot is ready' (the page wires it to the server). */
  notificationsSection?: ReactNode;
}

const longDate = (iso: string) => new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });

function ReadOnlyField({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      <dt className="text-sm font-medium text-fg">{label}</dt>
      <dd className="h-10 truncate rounded-md border border-border bg-bg-subtle px-3 text-sm leading-10 text-fg-muted">{value}</dd>
    </div>
  );
}

/** /app/profile (product §2): who the user is, their credits and plan, read-only account data and Sign Out. */
export function ProfileScreen(props: ProfileScreenProps) {
  const { fullName, email, imageUrl, joinedAt, credits, subscriptionStatus, subscriptionPlan, currentPeriodEnd } = props;
  const name = displayName(fullName);
  const joined = joinedLabel(joinedAt);
  const active = activePlanId(subscriptionStatus, subscriptionPlan) !== null;
  // Desktop shows Sign Out beside the name, phones at the end of the page; a wrapper hides the other one
  // (on the button itself `hidden` would lose to the button's own display class).
  const signOut = (wrapperClassName: string) => (
    <div className={wrapperClassName}>
      <Button variant="outline" className="w-full" onClick={props.onSignOut}>
        <LogOut className="size-4" aria-hidden />
        Sign Out
      </Button>
    </div>
  );

  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-5 md:gap-6">
      <Card className="flex flex-col items-center gap-4 p-6 text-center md:flex-row md:gap-6 md:p-8 md:text-left">
        <Avatar src={imageUrl} name={fullName} email={email} className="size-20 ring-4 ring-brand-soft md:size-24" />
        <div className="w-full min-w-0 flex-1">
          <h1 className="truncate text-2xl font-bold md:text-3xl">{name}</h1>
          {email && (
            <p className="mt-1 flex items-center justify-center gap-1.5 text-fg-muted md:justify-start">
              <Mail className="size-4 shrink-0" aria-hidden />
              <span className="min-w-0 truncate">{email}</span>
            </p>
          )}
          {joined && (
            <p className="mt-1 flex items-center justify-center gap-1.5 text-sm text-fg-subtle md:justify-start">
              <CalendarDays className="size-4 shrink-0" aria-hidden />
              {joined}
            </p>
          )}
        </div>
        {signOut('hidden md:block')}
      </Card>

      <div className="grid gap-5 md:grid-cols-2 md:gap-6">
        <Card className="flex flex-col p-6">
          <CardTitle icon={<Coins className="size-4 text-warning" aria-hidden />}>Credits</CardTitle>
          <p className="mt-3 text-4xl font-bold tracking-tight" data-testid="profile-credits">
            {credits.toLocaleString('en-US')}
          </p>
          <p className="text-sm text-fg-muted">Available credits</p>
          <ul className="mt-4 flex flex-1 flex-col gap-1 text-sm text-fg-muted">
            <li>Generation costs {CREDIT_COSTS.generation} credits each</li>
            <li>Training costs {CREDIT_COSTS.training} credits each</li>
          </ul>
          <div className="mt-5 flex flex-col gap-2 sm:flex-row">
            <Link to="/app/subscription" className={buttonClasses('primary', 'md', 'w-full sm:w-fit')}>
              Get More Credits
            </Link>
            <Link to="/app/credits" className={buttonClasses('outline', 'md', 'w-full sm:w-fit')}>
              Credit History
            </Link>
          </div>
        </Card>

        <Card className="flex flex-col p-6">
          <CardTitle icon={<Crown className="size-4 text-brand" aria-hidden />}>Subscription</CardTitle>
          <div className="mt-3 flex items-center gap-2">
            <p className="text-2xl font-bold" data-testid="profile-plan">
              {planLabel(subscriptionStatus, subscriptionPlan)}
            </p>
            {active && <span className="rounded-full bg-success-soft px-2.5 py-0.5 text-xs font-semibold text-success">Active</span>}
          </div>
          <p className="mt-2 flex-1 text-sm text-fg-muted">
            {active
              ? `Your plan renews automatically every month${currentPeriodEnd ? `; the current period ends ${longDate(currentPeriodEnd)}` : ''}.`
              : 'Upgrade to unlock more features and credits'}
          </p>
          <Link to="/app/subscription" className={buttonClasses(active ? 'outline' : 'primary', 'md', 'mt-5 w-full sm:w-fit')}>
            {active ? 'Manage Subscription' : 'Upgrade Plan'}
          </Link>
        </Card>
      </div>

      <Card className="p-6">
        <CardTitle icon={<UserRound className="size-4 text-brand" aria-hidden />}>Account Information</CardTitle>
        <dl className="mt-4 grid gap-4 md:grid-cols-2">
          <ReadOnlyField label="Full Name" value={fullName?.trim() || 'Not set'} />
          <ReadOnlyField label="Email Address" value={email ?? 'Not set'} />
        </dl>
        <p className="mt-4 rounded-md bg-bg-subtle px-3 py-2.5 text-sm text-fg-muted">
          Your personal data is read-only here. To change your name or email address, please contact support.
        </p>
      </Card>

      {props.passwordSection}
      {props.notificationsSection}
      <YourDataCard email={email} {...props.data} />

      {signOut('md:hidden')}
    </div>
  );
}
