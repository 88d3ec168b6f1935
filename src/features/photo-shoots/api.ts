import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ShootView } from '@common/photo-shoots';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { activeTeamId } from '@/backend/space';
import { useChanges } from '@/session/use-realtime';

/** Photo shoots: packs and shoots read through the data port, started and cancelled on our server. */

export const packsKey = ['photo-packs'] as const;
export const shootsKey = ['shoots'] as const;
export const shootKey = (id: string) => ['shoots', 'one', id] as const;

export function usePhotoPacks() {
  const { data } = useBackend();
  return useQuery({ queryKey: packsKey, queryFn: ({ signal }) => data.photoPacks(signal), staleTime: 60_000 });
}

/** The user's shoots (running ones only with `running`), kept live. */
export function useShoots(running = false) {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('shoots', () => void qc.invalidateQueries({ queryKey: shootsKey }));
  return useQuery({ queryKey: [...shootsKey, running ? 'running' : 'all'], queryFn: ({ signal }) => data.shoots({ running }, signal) });
}

/** One shoot and its photos, refetched on every change of the user's shoots. */
export function useShoot(id: string) {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('shoots', () => void qc.invalidateQueries({ queryKey: shootKey(id) }));
  return useQuery({
    queryKey: shootKey(id),
    queryFn: ({ signal }) => data.shoot(id, signal),
    // Queue positions and the estimate move without a change of this shoot's rows.
    refetchInterval: (q) => (q.state.data?.status === 'RUNNING' ? 5_000 : false),
    retry: (count, err) => count < 2 && !(err instanceof Error && 'status' in err && (err as { status: number }).status === 404),
  });
}

/**
 * POST /api/shoots: one request id per click, so a repeated request makes one shoot. In a team's space (issue 49)
 * it is that team's shoot: paid by the team, in the team's look whatever the pack.
 */
export function startShoot(api: ApiPort, packId: string, loraId: string, requestId: string): Promise<ShootView> {
  const teamId = activeTeamId();
  return api.request<ShootView>('/api/shoots', {
    method: 'POST',
    body: { pack_id: packId, lora_id: loraId, request_id: requestId, ...(teamId ? { team_id: teamId } : {}) },
  });
}

export function cancelShoot(api: ApiPort, id: string): Promise<ShootView> {
  return api.request<ShootView>(`/api/shoots/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
}

export const shootArchivePath = (id: string) => `/api/shoots/${encodeURIComponent(id)}/archive`;
