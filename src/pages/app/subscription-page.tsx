import { SubscriptionScreen } from '@/features/billing/components/subscription-screen';
import { usePageTitle } from '@/lib/use-page-title';

export default function SubscriptionPage() {
  usePageTitle('Subscription');
  return <SubscriptionScreen />;
}
