import { Hono } from 'hono';
import { z } from 'zod';
import { spaceQuerySchema } from '@common/teams.ts';
import { editRequestSchema, upscaleRequestSchema } from '@common/finishing.ts';
import { generationRequestSchema } from '@common/generation.ts';
import { LIMITS } from '@common/product.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { CallerEnv } from '../http/context.ts';
import { requireCaller } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { GenerationsService } from '../services/generations.service.ts';
import type { FinishingService } from '../services/finishing.service.ts';
import type { UsersService } from '../services/users.service.ts';

const listQuery = spaceQuerySchema.extend({
  limit: z.coerce.number().int().min(1).max(LIMITS.pageSize).default(LIMITS.recentGenerations),
});

/** Mounted at /api: the image API's generate call and the lists the create page reads. */
export function generationsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  generations: GenerationsService;
  finishing: FinishingService;
}) {
  const app = new Hono<CallerEnv>();
  // Only the caller's id is read here: a session read moments ago is not read again (requireCaller).
  const auth = requireCaller(deps.identity, deps.users);

  app.post('/image/generate-image', auth, async (c) => {
    const request = parseOrThrow(generationRequestSchema, await readJson(c.req.raw));
    return c.json(await deps.generations.create(c.var.userId, request));
  });

  // Finishing a result: a new generation from one of the caller's own.
  app.post('/image/upscale', auth, async (c) => {
    const request = parseOrThrow(upscaleRequestSchema, await readJson(c.req.raw));
    return c.json(await deps.finishing.upscale(c.var.userId, request));
  });

  app.post('/image/edit', auth, async (c) => {
    const request = parseOrThrow(editRequestSchema, await readJson(c.req.raw));
    return c.json(await deps.finishing.edit(c.var.userId, request));
  });

  // Recent generations (product §2 'Recent Generations': ACTIVE, newest first).
  app.get('/generations', auth, async (c) => {
    const { limit, team } = parseOrThrow(listQuery, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json({ items: await deps.generations.listRecent(c.var.userId, limit, team) });
  });

  // The character picker: the caller's COMPLETED trainings with a LoRA file, newest first.
  app.get('/characters', auth, async (c) => {
    const { team } = parseOrThrow(spaceQuerySchema, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json({ items: await deps.generations.listCharacters(c.var.userId, team) });
  });

  return app;
}
