import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import { useChanges } from '@/session/use-realtime';

/** The user's characters (finished trainings), for Create Image and Photo Shoots; kept live by training changes. */
export const charactersKey = ['characters'] as const;

export function useCharacters() {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('trainings', () => void qc.invalidateQueries({ queryKey: charactersKey }));
  return useQuery({ queryKey: charactersKey, queryFn: ({ signal }) => data.characters(signal) });
}
