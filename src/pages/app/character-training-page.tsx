import { CharacterTrainingView } from '@/features/training/components/character-training-view';
import { useMe } from '@/session/api';
import { usePageTitle } from '@/lib/use-page-title';

export default function CharacterTrainingPage() {
  usePageTitle('Character Training');
  const me = useMe();
  return <CharacterTrainingView credits={me.credits} email={me.email} />;
}
