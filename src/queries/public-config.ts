import { useQuery } from '@tanstack/react-query';
import { LIMITS } from '@common/product';
import { useBackend } from '@/backend/backend-context';

/** What the server lets the public site know (server/routes/public-config.routes.ts). */
export interface PublicConfig {
  supportEmail: string;
  uploadRetentionDays: number;
  /** Whether /sandbox/mail shows this visitor the local outbox (a server without SMTP, on their own machine). */
  mailOutboxPage: boolean;
}

export const publicConfigKey = ['public-config'] as const;

function usePublicConfig(): PublicConfig | undefined {
  const { api } = useBackend();
  return useQuery({
    queryKey: publicConfigKey,
    queryFn: ({ signal }) => api.request<PublicConfig>('/api/public-config', { signal }),
    staleTime: Infinity,
  }).data;
}

/** The contact address shown in the footer and the legal pages, from the server's SUPPORT_EMAIL. */
export function useSupportEmail(): string | undefined {
  return usePublicConfig()?.supportEmail;
}

/** Days original uploads are kept (UPLOAD_RETENTION_DAYS), as the legal pages and the FAQ state it. */
export function useUploadRetentionDays(): number {
  return usePublicConfig()?.uploadRetentionDays ?? LIMITS.originalsRetentionDays;
}

/** Whether the mail this server "sends" is in its local outbox page (/sandbox/mail), open to this visitor. */
export function useMailOutboxPage(): boolean {
  return usePublicConfig()?.mailOutboxPage ?? false;
}
