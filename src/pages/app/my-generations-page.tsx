import { LibraryGallery } from '@/features/gallery/components/library-gallery';
import { usePageTitle } from '@/lib/use-page-title';

export default function MyGenerationsPage() {
  usePageTitle('My Generations');
  return <LibraryGallery kind="generations" />;
}
