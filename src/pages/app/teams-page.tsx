import { TeamsHome } from '@/features/teams/components/teams-home';
import { usePageTitle } from '@/lib/use-page-title';

export default function TeamsPage() {
  usePageTitle('Teams');
  return <TeamsHome />;
}
