// @vitest-environment jsdom
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createHttpApi } from '@/backend/http-api';
import { createLocalData } from '@/backend/local/data';
import { me, sessionUser } from '../support/fake-backend';

/** The local build's user sync asked for as a page of the app opens (issue 54 item 2: one round trip less). */

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
