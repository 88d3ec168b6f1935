import { expect } from 'vitest';
import type { PhotoCheck } from '@common/photo-check.ts';
import type { TestClient } from './server.ts';

/** POST /api/trainings/check-photo as the training page sends a photo (multipart, field `file`). */
export function postPhotoCheck(client: TestClient, bytes: Buffer, opts: { name?: string; query?: string } = {}): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), opts.name ?? 'photo.jpg');
  return client.fetch(`/api/trainings/check-photo${opts.query ?? ''}`, { method: 'POST', body: form });
}

/** The server's verdict on a photo; the check must answer 200. */
export async function photoVerdict(client: TestClient, bytes: Buffer, opts: { name?: string; query?: string } = {}): Promise<PhotoCheck> {
  const res = await postPhotoCheck(client, bytes, opts);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
