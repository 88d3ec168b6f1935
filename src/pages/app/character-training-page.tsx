import { CharacterTrainingView } from '@/features/training/components/character-training-view';
import { useMe } from '@/session/api';
import { spaceCredits, useSpace } from '@/session/space';
import { usePageTitle } from '@/lib/use-page-title';

export default function CharacterTrainingPage() {
  usePageTitle('Character Training');
  const me = useMe();
  // The active space's balance (issue 49): in a team's space the team pays.
  return <CharacterTrainingView credits={spaceCredits(useSpace(), me)} email={me.email} />;
}
