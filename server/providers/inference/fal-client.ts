import { ApiError, createFalClient, type FalClient } from '@fal-ai/client';
import { ProviderError } from './provider.ts';

/** What every fal adapter is built from; `fetch` lets tests point the client at a fake fal. */
export interface FalConnection {
  credentials: string;
  fetch?: typeof fetch;
}

export function falClient(conn: FalConnection): FalClient {
  // The client retries 429/502/503/504 and network failures itself (status polls also 500), with
  // backoff from 1 s; we add no second layer of retries on top.
  return createFalClient({ credentials: conn.credentials, ...(conn.fetch ? { fetch: conn.fetch } : {}) });
}

/** fal's validation answer: `{detail: [{loc, msg, type}]}` (or a plain string detail). */
function detailMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail
      .map((d: { loc?: unknown[]; msg?: string }) =>
        [Array.isArray(d.loc) ? d.loc.filter((l) => l !== 'body').join('.') : '', d.msg].filter(Boolean).join(': '),
      )
      .filter(Boolean);
    return parts.length ? parts.join('; ') : null;
  }
  const message = (body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error;
  return typeof message === 'string' ? message : null;
}

/** Turns whatever the fal client threw into a ProviderError that says what the caller can do. */
export function toProviderError(err: unknown, what: string): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof ApiError) {
    const detail = detailMessage(err.body);
    const status = err.status;
    // fal's safety checker refusing an input or output (models without has_nsfw_concepts answer this way).
    if (isContentPolicyViolation(err.body)) return new ProviderError(`fal's safety checker flagged the ${what}`, 'nsfw', status, err.body);
    if (status === 422 || status === 400) {
      return new ProviderError(`fal rejected the ${what}${detail ? `: ${detail}` : ''}`, 'rejected', status, err.body);
    }
    if (status === 401 || status === 403) {
      return new ProviderError(`fal refused the credentials (HTTP ${status}); check FAL_KEY`, 'rejected', status, err.body);
    }
    if (status === 404) return new ProviderError(`fal does not know this ${what} (HTTP 404)`, 'rejected', status, err.body);
    return new ProviderError(`fal failed the ${what} (HTTP ${status})${detail ? `: ${detail}` : ''}`, 'failed', status, err.body);
  }
  if (isAbort(err)) return new ProviderError(`The ${what} was cancelled`, 'cancelled');
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(`fal could not be reached for the ${what}: ${message}`, 'failed');
}

/** fal's model-error type for flagged content: `{detail: [{type: 'content_policy_violation', …}]}`. */
function isContentPolicyViolation(body: unknown): boolean {
  const detail = body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  return Array.isArray(detail) && detail.some((d: { type?: unknown }) => d?.type === 'content_policy_violation');
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** Waits, unless the signal fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles with the promise, or rejects as soon as the signal fires. The fal client sleeps between its
 * retries without watching the signal; this keeps a timeout or cancel prompt even then.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
