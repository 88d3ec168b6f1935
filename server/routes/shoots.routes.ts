import { Hono } from 'hono';
import { z } from 'zod';
import { archiveEntryName, shootArchiveName, startShootSchema } from '@common/photo-shoots.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import type { AppEnv } from '../http/context.ts';
import { notFound } from '../domain/errors.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { StorageProvider } from '../providers/storage/index.ts';
import { generationsRepository } from '../repositories/generations.repository.ts';
import { shootsRepository } from '../repositories/shoots.repository.ts';
import type { PageEnd } from '../repositories/keyset.ts';
import type { ShootsService } from '../services/shoots.service.ts';
import type { UsersService } from '../services/users.service.ts';
import type { Logger } from '../logger.ts';
import { storedFile, zipStream, type ZipEntry } from '../services/zip-stream.ts';
import { zipDownload } from '../http/zip-download.ts';

const startBody = startShootSchema.extend({ request_id: z.string().uuid('must be a uuid').optional() });
const listQuery = z.object({ running: z.enum(['true', 'false']).optional() });
const FAVORITES_PAGE = 200;

const extensionOf = (format: string) => (format === 'png' ? 'png' : 'jpg');

/** Mounted at /api: photo packs, photo shoots and their ZIPs, and the favourites' ZIP. */
export function shootsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  shoots: ShootsService;
  db: Db;
  storage: StorageProvider;
  logger: Logger;
}) {
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
    const { running } = parseOrThrow(listQuery, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json({ items: await deps.shoots.list(c.var.user.id, { running: running === 'true' }) });
  });

  app.get('/shoots/:id', auth, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.shoots.get(c.var.user.id, c.req.param('id')));
  });

  app.post('/shoots/:id/cancel', auth, async (c) => c.json(await deps.shoots.cancel(c.var.user.id, c.req.param('id'))));

  // What has landed so far, in catalogue order: 01.jpg is the pack's first prompt.
  app.get('/shoots/:id/archive', auth, async (c) => {
    const shoot = await deps.shoots.get(c.var.user.id, c.req.param('id'));
    const photos = await shootsRepository.archivePhotos(deps.db, shoot.id);
    const entries: ZipEntry[] = photos.map((p) => ({
      name: archiveEntryName(p.position, shoot.photo_count, extensionOf(p.outputFormat)),
      content: storedFile(deps.storage, p.imageUrl),
    }));
    return zipDownload(
      c,
      zipStream(entries, (err) => deps.logger.error({ err, shootId: shoot.id }, 'a shoot download was cut short')),
      shootArchiveName(shoot.character_name, shoot.pack_name),
    );
  });

  // Favourites, newest first as the page shows them, read a page at a time while the ZIP streams.
  app.get('/favorites/archive', auth, async (c) => {
    const userId = c.var.user.id;
    const total = await generationsRepository.countFavorites(deps.db, userId);
    if (total === 0) throw notFound('You have no favourites to download yet.');
    async function* entries(): AsyncGenerator<ZipEntry> {
      let index = 0;
      let after: PageEnd | undefined;
      for (;;) {
        const page = await generationsRepository.favoritesAfter(deps.db, userId, after, FAVORITES_PAGE);
        for (const g of page)
          yield { name: archiveEntryName(index++, total, extensionOf(g.outputFormat)), content: storedFile(deps.storage, g.imageUrl) };
        if (page.length < FAVORITES_PAGE) return;
        after = page[page.length - 1];
      }
    }
    return zipDownload(
      c,
      zipStream(entries(), (err) => deps.logger.error({ err, userId }, 'a favourites download was cut short')),
      'likeness-favorites.zip',
    );
  });

  return app;
}
