import type { Identity } from '../auth/identity.ts';
import type { UserRow } from '../services/users.service.ts';

/** Variables of a route that needs only who calls (requireCaller). */
export interface CallerEnv {
  Variables: {
    requestId: string;
    identity: Identity;
    /** The caller's users.id, set by requireCaller and requireUser. */
    userId: string;
  };
}

/** Variables Hono middlewares put on the request context. */
export interface AppEnv {
  Variables: CallerEnv['Variables'] & {
    /** The caller's users row, set by requireUser. */
    user: UserRow;
  };
}
