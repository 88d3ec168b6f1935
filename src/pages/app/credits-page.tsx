import { CreditsScreen } from '@/features/credits/components/credits-screen';
import { usePageTitle } from '@/lib/use-page-title';

export default function CreditsPage() {
  usePageTitle('Credits');
  return <CreditsScreen />;
}
