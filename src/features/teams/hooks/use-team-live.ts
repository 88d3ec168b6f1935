import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import { teamKey, teamsKey } from '../api';

/** Refetches the team's queries whenever the server says the team changed (a member joined, submitted, a balance moved). */
export function useTeamLive(teamId?: string) {
  const { live } = useBackend();
  const qc = useQueryClient();
  useEffect(
    () =>
      live.watchChanges('teams', () => {
        void qc.invalidateQueries({ queryKey: teamId ? teamKey(teamId) : teamsKey });
      }),
    [live, qc, teamId],
  );
}
