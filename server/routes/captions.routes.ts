import { Hono } from 'hono';
import { captionRequestSchema } from '@common/captions.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { CaptionsService } from '../services/captions.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Mounted at /api/image: prompt extraction, Fast (1 credit) and Detailed (2 credits). */
export function captionsRoutes(deps: { identity: IdentityProvider; users: UsersService; captions: CaptionsService }) {
  const app = new Hono<AppEnv>();
  const auth = requireUser(deps.identity, deps.users);

  app.post('/fast-caption', auth, async (c) => {
    const { image_url } = parseOrThrow(captionRequestSchema, await readJson(c.req.raw));
    return c.json(await deps.captions.caption(c.var.user.id, image_url, 'fast'));
  });
  app.post('/detail-caption', auth, async (c) => {
    const { image_url } = parseOrThrow(captionRequestSchema, await readJson(c.req.raw));
    return c.json(await deps.captions.caption(c.var.user.id, image_url, 'detailed'));
  });
  return app;
}
