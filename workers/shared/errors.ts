/**
 * A refusal the workers answer with: status, stable code and a message safe to show, in the server's JSON shape
 * (`{message, code}`), so the SPA reads a worker's answer as it reads the server's.
 */
export class WorkerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerError';
  }
}

/** One of the refusal tables of common/ (BILLING_REFUSALS, SESSION_REFUSALS) as a thrown error. */
export const refuse = (r: { status: number; code: string; message: string }) => new WorkerError(r.status, r.code, r.message);

/** The workers' own answers (the server has other ways to say these: it stops at start, or retries within its SDK). */
export const WORKER_REFUSALS = {
  notConfigured: { status: 503, code: 'not_configured', message: 'This service is not configured yet. Please try again later.' },
  accountUnavailable: {
    status: 503,
    code: 'unavailable',
    message: 'Your account could not be checked right now. Please try again in a moment.',
  },
  providerTimeout: {
    status: 504,
    code: 'payment_provider_timeout',
    message: 'The payment provider did not answer in time. Please try again.',
  },
  invalidJson: { status: 400, code: 'invalid_json', message: 'body: must be valid JSON' },
  tooLarge: { status: 413, code: 'payload_too_large', message: 'The request is too large.' },
  notFound: { status: 404, code: 'not_found', message: 'Not found.' },
  crossSite: { status: 403, code: 'bad_origin', message: 'Cross-site request refused.' },
} as const;
