import { Hono } from 'hono';
import { z } from 'zod';
import { spaceQuerySchema } from '@common/teams.ts';
import { startShootSchema } from '@common/photo-shoots.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { ArchivesService } from '../services/archives.service.ts';
import type { ShootsService } from '../services/shoots.service.ts';
import type { UsersService } from '../services/users.service.ts';
import { zipDownload } from '../http/zip-download.ts';

const startBody = startShootSchema.extend({ request_id: z.string().uuid('must be a uuid').optional() });
const listQuery = spaceQuerySchema.extend({ running: z.enum(['true', 'false']).optional() });
/** Mounted at /api: photo packs, photo shoots and their ZIPs, and the favourites' ZIP. */
export function shootsRoutes(deps: { identity: IdentityProvider; users: UsersService; shoots: ShootsService; archives: ArchivesService }) {
  const app = new Hono<AppEnv>();
  const auth = requireUser(deps.identity, deps.users);

  // The catalogue is public (the hosted SPA reads it from Supabase, read-only).
  app.get('/photo-packs', async (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.json({ items: await deps.shoots.listPacks() });
  });
  app.get('/photo-packs/:id', async (c) => c.json(await deps.shoots.getPack(c.req.param('id'))));

  app.post('/shoots', auth, async (c) => {
    const body = parseOrThrow(startBody, await readJson(c.req.raw));
    const { shoot, created } = await deps.shoots.start(c.var.user.id, body);
    return c.json(shoot, created ? 201 : 200);
  });

  app.get('/shoots', auth, async (c) => {
    const { running, team } = parseOrThrow(listQuery, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json({ items: await deps.shoots.list(c.var.user.id, { running: running === 'true', team }) });
  });

  app.get('/shoots/:id', auth, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.shoots.get(c.var.user.id, c.req.param('id')));
  });

  app.post('/shoots/:id/cancel', auth, async (c) => c.json(await deps.shoots.cancel(c.var.user.id, c.req.param('id'))));

  // What has landed so far, in catalogue order: 01.jpg is the pack's first prompt.
  app.get('/shoots/:id/archive', auth, async (c) => {
    const { stream, name } = await deps.archives.shoot(c.var.user.id, c.req.param('id'));
    return zipDownload(c, stream, name);
  });

  // Favourites, newest first as the page shows them, read a page at a time while the ZIP streams.
  app.get('/favorites/archive', auth, async (c) => {
    const { stream, name } = await deps.archives.favorites(c.var.user.id);
    return zipDownload(c, stream, name);
  });

  return app;
}
