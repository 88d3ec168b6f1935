import type { TestClient } from './server.ts';

/** POST /api/upload with one file in the `file` field, as the SPA sends it; the server's raw answer. */
export function postUpload(client: TestClient, bytes: Uint8Array | string, name: string, type: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type }), name);
  return client.fetch('/api/upload', { method: 'POST', body: form });
}

/** Uploads one file through the uploader; returns its URL (throws on any other answer than 200). */
export async function uploadFile(client: TestClient, bytes: Uint8Array | string, name: string, type: string): Promise<string> {
  const res = await postUpload(client, bytes, name, type);
  if (res.status !== 200) throw new Error(`upload of ${name} failed: ${res.status} ${await res.text()}`);
  return (await res.json()).url;
}
