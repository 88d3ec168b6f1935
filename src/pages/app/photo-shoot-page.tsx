import { useParams } from 'react-router';
import { ShootPageView } from '@/features/photo-shoots/components/shoot-view';
import { usePageTitle } from '@/lib/use-page-title';

export default function PhotoShootPage() {
  usePageTitle('Photo Shoot');
  const { id = '' } = useParams();
  return <ShootPageView id={id} />;
}
