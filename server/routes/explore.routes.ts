import { Hono } from 'hono';
import { exploreQuerySchema } from '@common/library.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import type { ExploreService } from '../services/explore.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Mounted at /api/explore: the community gallery, read-only for every signed-in user (product §6). */
export function exploreRoutes(deps: { identity: IdentityProvider; users: UsersService; explore: ExploreService }) {
  const app = new Hono<AppEnv>();
  app.use('*', requireUser(deps.identity, deps.users));

  app.get('/', async (c) => {
    const query = parseOrThrow(exploreQuerySchema, c.req.query());
    c.header('Cache-Control', 'private, no-cache');
    return c.json(await deps.explore.list(query));
  });

  app.get('/filters', async (c) => {
    c.header('Cache-Control', 'private, no-cache');
    return c.json(await deps.explore.filterOptions());
  });

  app.get('/featured', async (c) => {
    c.header('Cache-Control', 'private, no-cache');
    return c.json({ items: await deps.explore.featured() });
  });

  return app;
}
