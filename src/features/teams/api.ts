import { useQuery } from '@tanstack/react-query';
import type {
  InviteReportRow,
  InviteWelcome,
  MemberStatus,
  TeamInviteView,
  TeamLook,
  TeamMemberView,
  TeamMemberWork,
  TeamView,
} from '@common/teams';
import type { ShootView } from '@common/photo-shoots';
import type { TopUpPackId } from '@common/plans';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { myTeamsKey, useMyTeams } from '@/session/space';

/** Teams (issue 49): every read and action goes to our server, which holds the team rules. */

const t = (id: string) => `/api/teams/${encodeURIComponent(id)}`;
export const teamsKey = myTeamsKey;
export const teamKey = (id: string) => ['teams', id] as const;

/** The person's teams: the session's list, which the space switcher reads too. */
export const useTeams = useMyTeams;

export function useTeam(id: string) {
  const { api } = useBackend();
  return useQuery({ queryKey: [...teamKey(id), 'team'], queryFn: () => api.request<TeamView>(t(id)) });
}

export function useTeamMembers(id: string, enabled: boolean) {
  const { api } = useBackend();
  return useQuery({
    queryKey: [...teamKey(id), 'members'],
    queryFn: () => api.request<{ items: TeamMemberView[] }>(`${t(id)}/members`).then((r) => r.items),
    enabled,
  });
}

export function useTeamInvites(id: string, enabled: boolean) {
  const { api } = useBackend();
  return useQuery({
    queryKey: [...teamKey(id), 'invites'],
    queryFn: () => api.request<{ items: TeamInviteView[] }>(`${t(id)}/invites`).then((r) => r.items),
    enabled,
  });
}

export function useMyTeamWork(id: string) {
  const { api } = useBackend();
  return useQuery({
    queryKey: [...teamKey(id), 'me'],
    queryFn: () => api.request<TeamMemberWork>(`${t(id)}/me`),
    refetchInterval: (q) => (q.state.data?.running_shoot_id ? 4_000 : false),
  });
}

export const createTeam = (api: ApiPort, name: string) => api.request<TeamView>('/api/teams', { method: 'POST', body: { name } });
export const importInvites = (api: ApiPort, id: string, text: string, send: boolean) =>
  api.request<{ rows: InviteReportRow[]; sent: number }>(`${t(id)}/invites`, { method: 'POST', body: { text, send } });
export const createOpenLink = (
  api: ApiPort,
  id: string,
  body: { domain: string | null; usage_limit: number | null; expires_at: string | null },
) => api.request<TeamInviteView>(`${t(id)}/open-links`, { method: 'POST', body });
export const resendInvite = (api: ApiPort, id: string, inviteId: string) =>
  api.request<TeamInviteView>(`${t(id)}/invites/${encodeURIComponent(inviteId)}/resend`, { method: 'POST' });
export const revokeInvite = (api: ApiPort, id: string, inviteId: string) =>
  api.request<TeamInviteView>(`${t(id)}/invites/${encodeURIComponent(inviteId)}/revoke`, { method: 'POST' });
export const saveLook = (api: ApiPort, id: string, look: TeamLook) => api.request<TeamView>(`${t(id)}/look`, { method: 'PUT', body: look });
export const remind = (api: ApiPort, id: string) => api.request<{ reminded: number }>(`${t(id)}/remind`, { method: 'POST' });
export const review = (api: ApiPort, id: string, userId: string, verdict: 'approve' | 'ask-again') =>
  api.request<{ ok: true }>(`${t(id)}/members/${encodeURIComponent(userId)}/${verdict}`, { method: 'POST' });
export const removeMember = (api: ApiPort, id: string, userId: string) =>
  api.request<{ refunded: number }>(`${t(id)}/members/${encodeURIComponent(userId)}`, { method: 'DELETE' });
export const submitPicks = (api: ApiPort, id: string, ids: string[]) =>
  api.request<TeamMemberWork>(`${t(id)}/submission`, { method: 'PUT', body: { generation_ids: ids } });
export const startTeamShoot = (api: ApiPort, id: string, loraId: string, requestId: string) =>
  api.request<ShootView>('/api/shoots', { method: 'POST', body: { pack_id: 'team', lora_id: loraId, team_id: id, request_id: requestId } });
export const inviteWelcome = (api: ApiPort, token: string) => api.request<InviteWelcome>(`/api/team-invites/${encodeURIComponent(token)}`);
export const acceptInvite = (api: ApiPort, token: string) =>
  api.request<{ team_id: string }>(`/api/team-invites/${encodeURIComponent(token)}/accept`, { method: 'POST' });
/** 'Buy team credits' (owner): the checkout address of a credit pack for the team. */
export const buyTeamCredits = (api: ApiPort, id: string, pack: TopUpPackId) =>
  api.request<{ checkout_url: string }>(`${t(id)}/credits/checkout`, { method: 'POST', body: { pack } }).then((r) => r.checkout_url);
/** The owner back from a team pack's checkout: grants the order now unless its webhook already has (once in all). */
export const confirmTeamPurchase = (api: ApiPort, id: string, fields: Record<string, string>) =>
  api.request<{ credited: boolean; credits: number; balance: number }>(`${t(id)}/credits/return`, { method: 'POST', body: fields });
export const teamArchivePath = (id: string) => `${t(id)}/archive`;

/** Words of a member's status on the dashboard. */
export const STATUS_LABEL: Record<MemberStatus, string> = {
  invited: 'Invited',
  joined: 'Joined',
  'photos uploaded': 'Photos uploaded',
  training: 'Training',
  shooting: 'Shooting',
  'to pick': 'To pick',
  submitted: 'Submitted',
  approved: 'Approved',
};
