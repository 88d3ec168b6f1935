import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';

/** The profile switch 'E-mail me when a character or a photo shoot is ready', on our server in both builds. */
export interface NotificationPreferences {
  email_notifications: boolean;
}

export const notificationPreferencesKey = ['notification-preferences'] as const;

export const notificationPreferencesQuery = (api: ApiPort) =>
  queryOptions({
    queryKey: notificationPreferencesKey,
    queryFn: ({ signal }) => api.request<NotificationPreferences>('/api/me/notifications', { signal }),
  });

export function useNotificationPreferences() {
  const { api } = useBackend();
  return useQuery(notificationPreferencesQuery(api));
}

export function useSetNotificationPreferences() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationPreferences) => api.request<NotificationPreferences>('/api/me/notifications', { method: 'PATCH', body }),
    onSuccess: (data) => qc.setQueryData(notificationPreferencesKey, data),
  });
}
