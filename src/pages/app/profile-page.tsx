import { useEffect } from 'react';
import { PageSpinner } from '@/components/ui/spinner';
import { useSubscription } from '@/features/billing/api';
import { useAccountData } from '@/features/profile/api';
import { useBackend } from '@/backend/backend-context';
import { ChangePasswordCard } from '@/features/profile/components/change-password-card';
import { NotificationsCard } from '@/features/profile/components/notifications-card';
import { ProfileScreen } from '@/features/profile/components/profile-screen';
import { useMe, useSignOut } from '@/session/api';
import { usePageTitle } from '@/lib/use-page-title';

export default function ProfilePage() {
  usePageTitle('Profile');
  const me = useMe();
  const subscription = useSubscription();
  const signOut = useSignOut();
  const account = useAccountData();
  const { identity } = useBackend();
  const changePassword = identity.changePassword?.bind(identity);

  // Spec §8: a failed subscription read on the profile is only logged; the live user record still shows the plan.
  useEffect(() => {
    if (subscription.error) console.error('Could not load the subscription for the profile', subscription.error);
  }, [subscription.error]);

  if (subscription.isPending) return <PageSpinner label="Loading profile" />;

  return (
    <ProfileScreen
      fullName={me.full_name}
      email={me.email}
      imageUrl={me.image_url}
      joinedAt={me.joined_at}
      credits={me.credits}
      subscriptionStatus={me.subscription_status}
      subscriptionPlan={me.subscription_plan}
      currentPeriodEnd={subscription.data?.current_period_end ?? null}
      onSignOut={() => void signOut()}
      data={{
        onDownloadData: account.downloadData,
        onDeleteAccount: account.deleteAccount,
        onOpenAccountDeletion: account.openAccountDeletion,
      }}
      notificationsSection={<NotificationsCard />}
      passwordSection={changePassword && <ChangePasswordCard email={me.email} fullName={me.full_name} changePassword={changePassword} />}
    />
  );
}
