import { Hono } from 'hono';
import { spaceQuerySchema } from '@common/teams.ts';
import { favoriteBodySchema, libraryQuerySchema, selectionActionSchema, selectionDownloadQuerySchema } from '@common/library.ts';
import { PRODUCT_NAME } from '@common/product.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { zipDownload } from '../http/zip-download.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { LibraryService } from '../services/library.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Mounted at /api/library: My Generations and Favorites (lists, favourite, soft delete and its Undo). */
export function libraryRoutes(deps: { identity: IdentityProvider; users: UsersService; library: LibraryService }) {
  const app = new Hono<AppEnv>();
  app.use('*', requireUser(deps.identity, deps.users));

  app.get('/generations', async (c) => {
    const query = parseOrThrow(libraryQuerySchema, c.req.query());
    const { team } = parseOrThrow(spaceQuerySchema, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.library.list(c.var.user.id, query, team));
  });

  app.get('/generations/:id', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.library.get(c.var.user.id, c.req.param('id')));
  });

  app.patch('/generations/:id', async (c) => {
    const { is_favorite } = parseOrThrow(favoriteBodySchema, await readJson(c.req.raw));
    return c.json(await deps.library.setFavorite(c.var.user.id, c.req.param('id'), is_favorite));
  });

  app.delete('/generations/:id', async (c) => {
    await deps.library.remove(c.var.user.id, c.req.param('id'));
    return c.body(null, 204);
  });

  // The toast's Undo after a delete: back to ACTIVE within GENERATION_UNDO_SECONDS (410 after that).
  app.post('/generations/:id/restore', async (c) => c.json(await deps.library.restore(c.var.user.id, c.req.param('id'))));

  // Select mode in My Generations: 'Delete' and 'Add to favorites' for up to 200 images at once, and the
  // Undo of such a 'Delete' ('restore').
  app.post('/selection', async (c) => {
    const { action, ids } = parseOrThrow(selectionActionSchema, await readJson(c.req.raw));
    return c.json(await deps.library.applyToSelection(c.var.user.id, action, ids));
  });

  // … and 'Download': their original files in one streamed ZIP.
  app.get('/selection.zip', async (c) => {
    const { ids } = parseOrThrow(selectionDownloadQuerySchema, c.req.query());
    const stream = await deps.library.downloadSelection(c.var.user.id, ids);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return zipDownload(c, stream, `${PRODUCT_NAME}-${ids.length}-images-${stamp}.zip`);
  });

  return app;
}
