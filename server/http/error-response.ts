import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, RateLimitedError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { AppEnv } from './context.ts';

/**
 * The one place where the domain's errors (server/domain/errors.ts) become HTTP answers: an AppError is
 * answered with its status, code and message; anything else is logged and answered 500 with a message that
 * gives nothing away.
 */
export function statusOf(err: AppError): ContentfulStatusCode {
  return err.status;
}

/** The JSON answer of the API for any error a request ended with. */
export function errorResponse(err: unknown, c: Context<AppEnv>, logger: Logger): Response {
  if (err instanceof RateLimitedError) c.header('Retry-After', String(err.retryAfterSeconds));
  if (err instanceof AppError) return c.json({ message: err.message, code: err.code }, statusOf(err));
  logger.error({ err, requestId: c.get('requestId'), method: c.req.method }, 'unhandled error');
  return c.json({ message: 'Something went wrong on our side. Please try again.', code: 'internal' }, 500);
}
