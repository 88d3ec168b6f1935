import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { useCallback } from 'react';
import { downloadFile } from '@/lib/download-file';
import { PRODUCT_NAME } from '@common/product';
import { ACCOUNT_DELETED_PATH, markAccountDeleted } from '@/session/paths';

/**
 * 'Download my data' and 'Delete account'. In the hosted build the account is deleted in the
 * identity provider's own page (`openAccountDeletion`), whose user.deleted webhook erases the data.
 */
export function useAccountData() {
  const { api, identity } = useBackend();

  const downloadData = useCallback(() => downloadFile(api, '/api/me/export', `${PRODUCT_NAME}-my-data.zip`), [api]);

  const deleteAccount = useCallback(
    async (email: string, password: string) => {
      // The deletion also ends this session's event stream, which sends the page to sign-in: with the message.
      markAccountDeleted();
      await api.request<void>('/api/me/delete', { method: 'POST', body: { email, password } }).catch((err: unknown) => {
        markAccountDeleted(false);
        throw err;
      });
      // The server ended the session with the account; signing out clears what the browser still holds.
      await identity.signOut().catch((err: unknown) => console.warn('Sign out after deleting the account did not complete', err));
      window.location.assign(ACCOUNT_DELETED_PATH);
    },
    [api, identity],
  );

  return { downloadData, deleteAccount, openAccountDeletion: identity.openAccountDeletion?.bind(identity) };
}

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
