import { Hono } from 'hono';
import { trainingSubmissionSchema } from '@common/training.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow, readJson } from '../http/validate.ts';
import type { TrainingsService } from '../services/trainings.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Mounted at /api: the image API's training call (spec §7) and the caller's trainings (newest first). */
export function trainingsRoutes(deps: { identity: IdentityProvider; users: UsersService; trainings: TrainingsService }) {
  const app = new Hono<AppEnv>();
  const auth = requireUser(deps.identity, deps.users);

  app.post('/image/submit-lora-training', auth, async (c) => {
    const input = parseOrThrow(trainingSubmissionSchema, await readJson(c.req.raw));
    return c.json(await deps.trainings.submit(c.var.user.id, input));
  });

  app.get('/trainings', auth, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ items: await deps.trainings.list(c.var.user.id) });
  });

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
