import type { ApiPort } from '../port';
import { ApiError } from '../api-error';

/** JSON over fetch to this product's server; the session cookie authenticates. */
export function createLocalApi(): ApiPort {
  return {
    async request<T>(path: string, opts: Parameters<ApiPort['request']>[1] = {}): Promise<T> {
      const isForm = typeof FormData !== 'undefined' && opts.body instanceof FormData;
      const res = await fetch(path, {
        method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
        credentials: 'same-origin',
        signal: opts.signal,
        headers: {
          Accept: 'application/json',
          ...(opts.body !== undefined && !isForm ? { 'Content-Type': 'application/json' } : {}),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : isForm ? (opts.body as FormData) : JSON.stringify(opts.body),
      });
      if (!res.ok) throw await ApiError.from(res);
      if (res.status === 204) return undefined as T;
      return (await res.json()) as T;
    },
  };
}
