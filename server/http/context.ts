import type { Identity } from '../auth/identity.ts';
import type { UserRow } from '../services/users.service.ts';

/** Variables Hono middlewares put on the request context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    identity: Identity;
    /** The caller's users row, set by requireUser. */
    user: UserRow;
  };
}
