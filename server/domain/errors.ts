/**
 * The domain's errors: a refusal or failure that is safe to show to the caller, with a stable code and a message
 * a user can act on. Services, auth, jobs and the admin commands throw them; they know nothing of HTTP. Their
 * `status` says what kind of failure it is, in HTTP's numbers because every caller understands those (400 bad
 * input, 401 not signed in, 402 not enough credits, 403 not yours, 404 no such thing, 409 conflict, 413 too large,
 * 422 refused content, 429 too many, 502/503/504 a service behind us failed, is unavailable or too slow); the HTTP
 * layer turns them into answers in one place (server/http/error-response.ts).
 */
import { SESSION_REFUSALS } from '@common/clerk-session.ts';

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 502 | 503 | 504;

/** A failure that is safe to show to the caller: status, stable code and a message a user can act on. */
export class AppError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, code = 'bad_request') => new AppError(400, code, message);
export const unauthorized = (message: string = SESSION_REFUSALS.signedOut.message) => new AppError(401, 'unauthorized', message);
/** A still-valid session of an erased account (a Clerk token outlives the deletion by up to a minute). */
export const accountDeleted = () => new AppError(401, 'account_deleted', SESSION_REFUSALS.accountDeleted.message);
export const forbidden = (message = 'You do not have access to this resource.', code = 'forbidden') => new AppError(403, code, message);
export const notFound = (message = 'Not found.') => new AppError(404, 'not_found', message);
export const conflict = (message: string, code = 'conflict') => new AppError(409, code, message);
export const insufficientCredits = (required: number, available: number) =>
  new AppError(402, 'insufficient_credits', `This needs ${required} credits; you have ${available}.`);
export const payloadTooLarge = (message = 'The request is too large.') => new AppError(413, 'payload_too_large', message);
export const tooManyRequests = (message: string) => new AppError(429, 'rate_limited', message);

/** A 429 that knows when the caller may try again: answered with a Retry-After header (seconds). */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'rate_limited', message);
    this.name = 'RateLimitedError';
  }
}
export const unavailable = (message: string, code = 'unavailable') => new AppError(503, code, message);
