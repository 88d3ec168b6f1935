/** Spec §8: the message when no session token could be had for an authenticated call. */
export const NO_TOKEN_MESSAGE = 'Failed to get authentication token';

/** A non-OK answer from the server: its status, raw body text and the server's user-safe message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly bodyText: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static async from(res: Response): Promise<ApiError> {
    const text = await res.text().catch(() => '');
    let message = `Request failed (${res.status})`;
    let code: string | undefined;
    try {
      const json = JSON.parse(text) as { message?: string; code?: string };
      if (json.message) message = json.message;
      code = json.code;
    } catch {
      // Not JSON: keep the generic message; bodyText still has the text.
    }
    return new ApiError(res.status, text, message, code);
  }
}

/**
 * The {body} of the spec's 'API error: {status} - {body}' style messages: the server's user-safe message when
 * it answered JSON, else the raw text (a proxy's error page, say).
 */
export function responseBody(err: ApiError): string {
  return serverMessage(err) ?? (err.bodyText.trim() || 'No response body');
}

/** The server's own user-safe message, or null when the answer carried none (a proxy's page, a crash). */
export function serverMessage(err: ApiError): string | null {
  try {
    const json = JSON.parse(err.bodyText) as { message?: unknown };
    if (typeof json.message === 'string' && json.message) return json.message;
  } catch {
    // Not JSON.
  }
  return null;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

/** A message a person can read, for any thrown value. */
export function errorMessage(err: unknown, fallback = 'An unexpected error occurred. Please try again later.'): string {
  return err instanceof Error && err.message ? err.message : fallback;
}
