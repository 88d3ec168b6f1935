import { Hono } from 'hono';
import type { UploadResponse } from '@common/captions.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { payloadTooLarge } from '../domain/errors.ts';
import { requireUser } from '../http/require-user.ts';
import type { UploadsService } from '../services/uploads.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Mounted at /api/upload: the uploader (product §7), multipart with one field `file`. Sets its own body limit. */
export function uploadsRoutes(deps: { identity: IdentityProvider; users: UsersService; uploads: UploadsService }) {
  const app = new Hono<AppEnv>();

  app.post('/', requireUser(deps.identity, deps.users), async (c) => {
    const declared = Number(c.req.header('content-length') ?? NaN);
    if (declared > deps.uploads.maxBodyBytes) throw payloadTooLarge('The upload is too large.');
    const upload = await deps.uploads.receive(c.var.user.id, c.req.raw.body, c.req.header('content-type'));
    return c.json({ success: true, url: upload.url } satisfies UploadResponse);
  });
  return app;
}
