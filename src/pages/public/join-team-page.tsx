import { useParams } from 'react-router';
import { JoinTeam } from '@/features/teams/components/join-team';
import { usePageTitle } from '@/lib/use-page-title';

export default function JoinTeamPage() {
  usePageTitle('Join a team');
  const { token = '' } = useParams();
  return (
    <div className="px-4 py-12">
      <JoinTeam token={token} />
    </div>
  );
}
