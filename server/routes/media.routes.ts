import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { attachmentDisposition } from '@common/media.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { notFound } from '../domain/errors.ts';
import { requireUser } from '../http/require-user.ts';
import { keyFromMediaUrl, type StoredObject } from '../providers/storage/index.ts';
import { canRead, isPublicKey, isThumbWidth, type MediaService } from '../services/media.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Stored objects never change under a key (a new version gets a new key), so browsers keep them for a year. */
const IMMUTABLE = 'max-age=31536000, immutable';
/**
 * A generated image stops being served the moment it is deleted, so caches must ask each time: an unchanged
 * image costs a 304 with no body (its ETag), a deleted one a 404.
 */
const REVALIDATE = 'public, no-cache';

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/** Sends a stored object with its validators; a matching If-None-Match gets 304 and no body. */
function sendObject(c: Context<AppEnv>, object: StoredObject, cacheControl: string, disposition?: string) {
  const etag = `"${object.etag}"`;
  c.header('ETag', etag);
  c.header('Cache-Control', cacheControl);
  c.header('Last-Modified', object.lastModified.toUTCString());
  if (!disposition && etagMatches(c.req.header('if-none-match'), etag)) {
    object.body.destroy();
    return c.body(null, 304);
  }
  c.header('Content-Type', object.contentType);
  c.header('Content-Length', String(object.size));
  // Only images render inline; anything else stored (archives, JSON) is always a download.
  const inline = object.contentType.startsWith('image/') && object.contentType !== 'image/svg+xml';
  if (disposition || !inline) c.header('Content-Disposition', disposition ?? 'attachment');
  if (c.req.method === 'HEAD') {
    object.body.destroy();
    return c.body(null, 200);
  }
  return c.body(Readable.toWeb(object.body) as ReadableStream, 200);
}

/**
 * GET /media/<key> and GET /media/thumbs/<width>/<key>: the product's files under its access rules
 * (see canRead). Public images are cacheable by anyone; private ones by the owner's browser only.
 */
export function mediaRoutes(deps: { media: MediaService; identity: IdentityProvider; users: UsersService }) {
  const app = new Hono<AppEnv>();

  /** The key of this request, after checking the caller may read it; 404 (not 403) hides private keys. */
  async function readableKey(c: Context<AppEnv>, key: string | null): Promise<string> {
    if (!key) throw notFound();
    if (!(await deps.media.isServed(key))) throw notFound();
    if (isPublicKey(key)) return key;
    const who = await deps.identity.identify(c.req.raw.headers);
    const user = who ? await deps.users.findByClerkId(who.id) : undefined;
    if (!canRead(key, user?.id ?? null)) throw notFound();
    return key;
  }
  // Generations and Explore images can be taken down (a delete, a removal, an erasure): shared caches revalidate them.
  const cacheControlOf = (key: string) =>
    key.startsWith('generations/') || key.startsWith('explore/') ? REVALIDATE : `${isPublicKey(key) ? 'public' : 'private'}, ${IMMUTABLE}`;

  app.get('/thumbs/:width{[0-9]+}/*', async (c) => {
    const width = Number(c.req.param('width'));
    const sourceKey = keyFromMediaUrl(c.req.path.replace(/^\/media\/thumbs\/[0-9]+\//, '/media/'));
    if (!isThumbWidth(width)) throw notFound('Thumbnails come in widths 384 and 768.');
    const key = await readableKey(c, sourceKey);
    const object = await deps.media.openThumbnail(width, key);
    if (!object) throw notFound();
    return sendObject(c, object, cacheControlOf(key));
  });

  app.get('/*', async (c) => {
    const key = await readableKey(c, keyFromMediaUrl(c.req.path));
    const object = await deps.media.open(key);
    if (!object) throw notFound();
    return sendObject(c, object, cacheControlOf(key));
  });

  return app;
}

/** GET /api/download/<id>[?source=explore]: the image as an attachment named likeness-<timestamp>.<ext>. */
export function downloadRoutes(deps: { media: MediaService; identity: IdentityProvider; users: UsersService }) {
  const app = new Hono<AppEnv>();
  app.get('/:id', requireUser(deps.identity, deps.users), async (c) => {
    const source = c.req.query('source') === 'explore' ? 'explore' : 'generation';
    const { object, filename } = await deps.media.openDownload(c.var.user.id, c.req.param('id'), source);
    return sendObject(c, object, 'private, no-cache', attachmentDisposition(filename));
  });
  return app;
}
