import { LibraryGallery } from '@/features/gallery/components/library-gallery';
import { usePageTitle } from '@/lib/use-page-title';

export default function FavoritesPage() {
  usePageTitle('Favorites');
  return <LibraryGallery kind="favorites" />;
}
