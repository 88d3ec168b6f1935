import { useParams } from 'react-router';
import { AcceptInvite } from '@/features/teams/components/join-team';
import { usePageTitle } from '@/lib/use-page-title';

export default function AcceptInvitePage() {
  usePageTitle('Join a team');
  const { token = '' } = useParams();
  return <AcceptInvite token={token} />;
}
