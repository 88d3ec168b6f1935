import { useLocation } from 'react-router';
import type { CreateImageNavigationState } from '@common/create-image-state';
import { CreateImageView } from '@/features/create-image/components/create-image-view';
import { ResultActions } from '@/features/gallery/components/generation-actions';
import { useMe } from '@/session/api';
import { usePageTitle } from '@/lib/use-page-title';

export default function CreateImagePage() {
  usePageTitle('Create Image');
  const me = useMe();
  const location = useLocation();
  const state = (location.state ?? null) as CreateImageNavigationState | null;
  // Arriving with a remix or a character starts a fresh form; a plain visit keeps the page as it is.
  // The result carries the viewer's actions: the gallery's own component (features do not import each other).
  return (
    <CreateImageView
      key={state ? location.key : 'plain'}
      credits={me.credits}
      navigationState={state}
      resultActions={(generation, show) => <ResultActions key={generation.id} generation={generation} onShow={show} />}
    />
  );
}
