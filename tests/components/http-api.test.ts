/**
 * The one client for our server's API (src/backend/http-api.ts): in the hosted build it calls VITE_API_URL
 * with the identity provider's session token as a bearer token (product §7) and no cookies; locally it calls
 * the page's own origin and the session cookie does the rest. Checked on the wire with MSW.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { ApiError } from '@/backend/api-error';
import { createHttpApi } from '@/backend/http-api';

const API = 'https://api.likeness.test';
const mswServer = setupServer();
beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mswServer.resetHandlers());
afterAll(() => mswServer.close());

describe('our API client in the hosted build', () => {
  it('sends each call to VITE_API_URL with the current session token, and no cookies', async () => {
    const seen: { auth: string | null; credentials: string; body: unknown }[] = [];
    mswServer.use(
      http.post(`${API}/api/image/generate-image`, async ({ request }) => {
        seen.push({ auth: request.headers.get('authorization'), credentials: request.credentials, body: await request.json() });
        return HttpResponse.json({ ok: true });
      }),
    );
    let n = 0;
    const api = createHttpApi({ baseUrl: `${API}/`, getToken: async () => `token-${++n}` });
    await api.request('/api/image/generate-image', { method: 'POST', body: { prompt: 'a' } });
    await api.request('/api/image/generate-image', { method: 'POST', body: { prompt: 'b' } });
    expect(seen).toEqual([
      { auth: 'Bearer token-1', credentials: 'omit', body: { prompt: 'a' } },
      { auth: 'Bearer token-2', credentials: 'omit', body: { prompt: 'b' } },
    ]);
  });

  it('calls an absolute address (a checkout or portal worker) as it is, with the same token and no cookies', async () => {
    const seen: { auth: string | null; credentials: string }[] = [];
    mswServer.use(
      http.post('https://checkout.likeness.workers.dev/', ({ request }) => {
        seen.push({ auth: request.headers.get('authorization'), credentials: request.credentials });
        return HttpResponse.json({ checkout_url: 'https://creem.test/ch_1' });
      }),
    );
    const api = createHttpApi({ baseUrl: API, getToken: async () => 'token-w' });
    expect(await api.request('https://checkout.likeness.workers.dev/', { method: 'POST', body: { plan: 'BASIC' } })).toEqual({
      checkout_url: 'https://creem.test/ch_1',
    });
    expect(seen).toEqual([{ auth: 'Bearer token-w', credentials: 'omit' }]);
  });

  it('signed out, calls go without a token and the server decides (a paid action answers 401)', async () => {
    mswServer.use(
      http.post(`${API}/api/upload`, ({ request }) =>
        request.headers.has('authorization') ? HttpResponse.json({}) : HttpResponse.json({ message: 'Sign in first.' }, { status: 401 }),
      ),
    );
    const err = await createHttpApi({ baseUrl: API, getToken: async () => null })
      .request('/api/upload', { method: 'POST', body: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, message: 'Sign in first.' });
  });

  it('downloads with the token and the file name the server gives; media paths point at our server', async () => {
    mswServer.use(
      http.get(`${API}/api/download/g1`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer t'
          ? new HttpResponse('bytes', { headers: { 'content-disposition': 'attachment; filename="likeness-1.jpeg"' } })
          : new HttpResponse(null, { status: 401 }),
      ),
    );
    const api = createHttpApi({ baseUrl: API, getToken: async () => 't' });
    const file = await api.download('/api/download/g1');
    expect(file.fileName).toBe('likeness-1.jpeg');
    expect(await file.blob.text()).toBe('bytes');
    expect(api.mediaUrl('/media/generations/a.jpeg')).toBe(`${API}/media/generations/a.jpeg`);
    expect(api.mediaUrl('https://cdn.example/a.jpeg')).toBe('https://cdn.example/a.jpeg');
    expect(createHttpApi().mediaUrl('/media/generations/a.jpeg')).toBe('/media/generations/a.jpeg');
  });
});
