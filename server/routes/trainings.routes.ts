import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { spaceQuerySchema } from '@common/teams.ts';
import { LIMITS } from '@common/product.ts';
import { characterRenameSchema, trainingSubmissionSchema } from '@common/training.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import { clientAddress, type ProxySettings } from '../http/client-address.ts';
import type { AppEnv } from '../http/context.ts';
import { readMultipartFile, type FileTypeRule } from '../services/multipart-file.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { CharactersService } from '../services/characters.service.ts';
import type { PhotoCheckService, ShownSize } from '../services/photo-check.service.ts';
import type { RatePolicies } from '../services/rate-policies.service.ts';
import type { TrainingsService } from '../services/trainings.service.ts';
import type { UsersService } from '../services/users.service.ts';

/**
 * The photo check takes any file (what it cannot read gets a verdict that says why); the page sends a
 * copy at most 1024 px long, or the file itself when it cannot make one.
 */
const CHECKED_FILE: FileTypeRule<'photo'>[] = [
  { kind: 'photo', contentType: 'application/octet-stream', extension: 'bin', maxBytes: LIMITS.uploadMaxBytes, matches: () => true },
];
/** The original's size the page states (`?width=&height=`), when both are sensible. */
function statedSize(query: (name: string) => string | undefined): ShownSize | undefined {
  const width = Number(query('width'));
  const height = Number(query('height'));
  const ok = (n: number) => Number.isInteger(n) && n > 0 && n <= 1_000_000;
  return ok(width) && ok(height) ? { width, height } : undefined;
}

/** Mounted at /api: the image API's training call (product §7), the photo check and the caller's trainings. */
export function trainingsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  ratePolicies: RatePolicies;
  trainings: TrainingsService;
  characters: CharactersService;
  photoChecks: PhotoCheckService;
  proxy: ProxySettings;
}) {
  const app = new Hono<AppEnv>();
  const auth = requireUser(deps.identity, deps.users);

  app.post('/trainings/check-photo', auth, async (c) => {
    const address = clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), deps.proxy);
    await deps.ratePolicies.admitPhotoCheck(c.var.user.id, address);
    const file = await readMultipartFile(c.req.raw.body, c.req.header('content-type'), 'file', CHECKED_FILE, 'Not a file.');
    c.header('Cache-Control', 'no-store');
    return c.json(
      await deps.photoChecks.check(
        file.bytes,
        statedSize((name) => c.req.query(name)),
      ),
    );
  });

  app.post('/image/submit-lora-training', auth, async (c) => {
    const input = parseOrThrow(trainingSubmissionSchema, await readJson(c.req.raw));
    return c.json(await deps.trainings.submit(c.var.user.id, input));
  });

  app.get('/trainings', auth, async (c) => {
    c.header('Cache-Control', 'no-store');
    const { team } = parseOrThrow(spaceQuerySchema, c.req.query());
    return c.json({ items: await deps.trainings.list(c.var.user.id, team) });
  });

  // 'Rename' and 'Delete' in Previous Trainings.
  app.patch('/trainings/:id', auth, async (c) => {
    const { character_name } = parseOrThrow(characterRenameSchema, await readJson(c.req.raw));
    return c.json(await deps.characters.rename(c.var.user.id, c.req.param('id'), character_name));
  });

  app.delete('/trainings/:id', auth, async (c) => {
    await deps.characters.delete(c.var.user.id, c.req.param('id'));
    return c.body(null, 204);
  });

  // The toast's Undo after 'Delete': the character back within CHARACTER_UNDO_SECONDS (410 after that).
  app.post('/trainings/:id/restore', auth, async (c) => c.json(await deps.characters.restore(c.var.user.id, c.req.param('id'))));

  return app;
}

/** Mounted at /api/webhooks/fal: fal's end-of-run notices, authenticated by their ED25519 signature. */
export function falWebhookRoutes(deps: { trainings: TrainingsService }) {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) => {
    const raw = Buffer.from(await c.req.arrayBuffer());
    return c.json(await deps.trainings.receiveFalWebhook(c.req.raw.headers, raw));
  });
  return app;
}
