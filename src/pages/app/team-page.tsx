import { useParams } from 'react-router';
import { TeamView } from '@/features/teams/components/team-view';
import { usePageTitle } from '@/lib/use-page-title';

export default function TeamPage() {
  usePageTitle('Team');
  const { id = '' } = useParams();
  return <TeamView id={id} />;
}
