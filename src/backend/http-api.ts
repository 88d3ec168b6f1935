import type { ApiPort, RequestOptions } from './port';
import { ApiError } from './api-error';
import { fileNameOfDisposition } from '@common/media';

/** Our server's media paths (`/media/…`) as URLs on `baseUrl`; anything else (an external URL) as it is. */
export function mediaUrlOn(baseUrl = ''): (path: string) => string {
  const base = baseUrl.replace(/\/+$/, '');
  return (path) => (base && path.startsWith('/') ? base + path : path);
}

/**
 * Our server's API, in both builds. Locally it is the page's own origin and the session cookie
 * authenticates; the hosted build calls `baseUrl` (VITE_API_URL, another origin) with the identity
 * provider's session token as `Authorization: Bearer <token>` (product §7) and no cookies.
 */
export function createHttpApi(opts: { baseUrl?: string; getToken?: () => Promise<string | null> } = {}): ApiPort {
  const baseUrl = (opts.baseUrl ?? '').replace(/\/+$/, '');

  async function send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    // Signed out there is no token: public calls still work, the rest answer 401 as they should.
    const token = await opts.getToken?.();
    if (token) init.headers.Authorization = `Bearer ${token}`;
    // An absolute address (a checkout or portal worker, see BillingEndpoints) is called as it is.
    const url = /^https?:\/\//.test(path) ? path : baseUrl + path;
    const res = await fetch(url, { ...init, credentials: opts.getToken ? 'omit' : 'same-origin' });
    if (!res.ok) throw await ApiError.from(res);
    return res;
  }

  return {
    async request<T>(path: string, o: RequestOptions = {}): Promise<T> {
      const isForm = typeof FormData !== 'undefined' && o.body instanceof FormData;
      const res = await send(path, {
        method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
        signal: o.signal,
        headers: {
          Accept: 'application/json',
          ...(o.body !== undefined && !isForm ? { 'Content-Type': 'application/json' } : {}),
          ...o.headers,
        },
        body: o.body === undefined ? undefined : isForm ? (o.body as FormData) : JSON.stringify(o.body),
      });
      if (res.status === 204) return undefined as T;
      return (await res.json()) as T;
    },

    mediaUrl: mediaUrlOn(baseUrl),

    async download(path: string) {
      const res = await send(path, { method: 'GET', headers: {} });
      return { blob: await res.blob(), fileName: fileNameOfDisposition(res.headers.get('content-disposition')) };
    },
  };
}
