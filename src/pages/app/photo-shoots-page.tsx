import { PhotoShootsView } from '@/features/photo-shoots/components/photo-shoots-view';
import { useMe } from '@/session/api';
import { spaceCredits, useSpace } from '@/session/space';
import { usePageTitle } from '@/lib/use-page-title';

export default function PhotoShootsPage() {
  usePageTitle('Photo Shoots');
  const me = useMe();
  // The active space's balance (issue 49): in a team's space the team pays.
  return <PhotoShootsView credits={spaceCredits(useSpace(), me)} />;
}
