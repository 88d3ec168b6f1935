import { ExploreGallery } from '@/features/gallery/components/explore-gallery';
import { usePageTitle } from '@/lib/use-page-title';

export default function ExplorePage() {
  usePageTitle('Explore');
  return <ExploreGallery />;
}
