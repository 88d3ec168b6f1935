import { PhotoShootsView } from '@/features/photo-shoots/components/photo-shoots-view';
import { useMe } from '@/session/api';
import { usePageTitle } from '@/lib/use-page-title';

export default function PhotoShootsPage() {
  usePageTitle('Photo Shoots');
  const me = useMe();
  return <PhotoShootsView credits={me.credits} />;
}
