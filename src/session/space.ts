import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { TeamView } from '@common/teams';
import { useBackend } from '@/backend/backend-context';
import type { Me } from '@/backend/port';
import { activeTeamId, setActiveTeamId, subscribeActiveTeam } from '@/backend/space';
import { meKey, sessionUserKey } from './api';
import { useChanges } from './use-realtime';

/**
 * The active space (issue 49, docs/decisions/025-space-switcher.md): Personal or one of the person's teams. The
 * switcher in the sidebar and the phone's top bar sets it; the data port reads every list in it; the balance
 * shown is the team's in a team space. Leaving a team (or being removed) falls back to Personal.
 */
export const myTeamsKey = ['teams'] as const;

/** The teams the person is in (with their role and the team's balance), kept live by team changes. */
export function useMyTeams() {
  const { api } = useBackend();
  const qc = useQueryClient();
  useChanges('teams', () => void qc.invalidateQueries({ queryKey: myTeamsKey, exact: true }));
  return useQuery({
    queryKey: myTeamsKey,
    queryFn: () => api.request<{ items: TeamView[] }>('/api/teams').then((r) => r.items),
  });
}

/** What survives a switch: who is signed in, their record and their teams; every list is read again. */
const KEPT = new Set<unknown>([sessionUserKey[0], meKey[0], myTeamsKey[0], 'photo-packs']);

export interface Space {
  /** The active team's id, or null in the personal space. */
  teamId: string | null;
  /** The active team, once the person's teams have loaded. */
  team: TeamView | null;
  teams: TeamView[];
  switchTo(teamId: string | null): void;
}

/** The active team's id (null: the personal space), re-rendering when it changes. */
export const useActiveTeamId = (): string | null => useSyncExternalStore(subscribeActiveTeam, activeTeamId, () => null);

export function useSpace(): Space {
  const teamId = useActiveTeamId();
  const teams = useMyTeams();
  const qc = useQueryClient();
  const switchTo = useCallback(
    (next: string | null) => {
      if (next === activeTeamId()) return;
      setActiveTeamId(next);
      // Every list of the old space goes; the ones on screen load again in the new one.
      void qc.resetQueries({ predicate: (q) => !KEPT.has(q.queryKey[0]) });
    },
    [qc],
  );
  const list = teams.data ?? [];
  return { teamId, team: list.find((t) => t.id === teamId) ?? null, teams: list, switchTo };
}

/**
 * Used once by the app's layout: a remembered team the person is no longer in (they left, were removed, or
 * another account signed in here) gives way to the personal space.
 */
export function useSpaceGuard(): Space {
  const space = useSpace();
  const teams = useMyTeams();
  const { teamId, switchTo } = space;
  useEffect(() => {
    if (teamId && teams.isSuccess && !teams.data.some((t) => t.id === teamId)) switchTo(null);
  }, [teamId, teams.isSuccess, teams.data, switchTo]);
  return space;
}

/** The balance the active space spends: the team's in a team space, the person's own otherwise. */
export function spaceCredits(space: Pick<Space, 'teamId' | 'team'>, me: Pick<Me, 'credits'>): number {
  return space.teamId ? (space.team?.credits ?? 0) : me.credits;
}
