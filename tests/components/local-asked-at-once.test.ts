// @vitest-environment jsdom
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createHttpApi } from '@/backend/http-api';
import { createLocalData } from '@/backend/local/data';
import { createLocalIdentity } from '@/backend/local/identity';
import { me, sessionUser } from '../support/fake-backend';

/** The local build's session and user record asked for as a page of the app opens (issue 54 item 2). */

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** Answers POST /api/me/sync with `answers` in turn, counting the requests. */
function syncAnswers(...answers: Array<'ok' | 401>) {
  const seen = { requests: 0 };
  server.use(
    http.post('*/api/me/sync', () => {
      const answer = answers[seen.requests++] ?? 'ok';
      return answer === 'ok'
        ? HttpResponse.json(me({ credits: seen.requests }))
        : HttpResponse.json({ code: 'unauthorized', message: 'Authentication failed' }, { status: 401 });
    }),
  );
  return seen;
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

it('asks at once, and the first sync takes that answer without asking again; later syncs ask anew', async () => {
  const seen = syncAnswers('ok', 'ok');
  const data = createLocalData(createHttpApi(), { syncAtOnce: true });
  await settled();
  expect(seen.requests).toBe(1);
  expect((await data.syncUser(sessionUser())).credits).toBe(1);
  expect(seen.requests).toBe(1);
  expect((await data.syncUser(sessionUser())).credits).toBe(2);
  expect(seen.requests).toBe(2);
});

it('a visitor signed out when the page opened is asked again once signed in', async () => {
  const seen = syncAnswers(401, 'ok');
  const data = createLocalData(createHttpApi(), { syncAtOnce: true });
  await settled();
  expect(seen.requests).toBe(1);
  expect((await data.syncUser(sessionUser())).credits).toBe(2);
  expect(seen.requests).toBe(2);
});

it('asks nothing before the first sync on a page outside the app', async () => {
  const seen = syncAnswers('ok');
  const data = createLocalData(createHttpApi());
  await settled();
  expect(seen.requests).toBe(0);
  await data.syncUser(sessionUser());
  expect(seen.requests).toBe(1);
});

it('the session too: asked at once, the first load takes it, the next asks anew', async () => {
  let requests = 0;
  server.use(
    http.get('*/api/auth/get-session', () => {
      requests++;
      return HttpResponse.json(
        requests === 1
          ? null
          : {
              session: { token: 't' },
              user: { id: 'u1', name: 'Ada Lovelace', email: 'ada@example.com', createdAt: '2026-01-01T00:00:00Z' },
            },
      );
    }),
  );
  const identity = createLocalIdentity({ loadAtOnce: true });
  await settled();
  expect(requests).toBe(1);
  expect(await identity.loadUser()).toBeNull();
  expect(requests).toBe(1);
  expect((await identity.loadUser())?.firstName).toBe('Ada');
  expect(requests).toBe(2);
});
