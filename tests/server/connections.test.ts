import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent, createServer, request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { dropStalledBodies } from '../../server/http/timeouts.ts';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.ts';

/** Opens an event stream and reads until `needle` appears; returns the reader and everything read. */
async function openStream(ts: TestServer, client: TestClient) {
  const res = await fetch(`${ts.url}/api/events`, { headers: { cookie: client.cookieHeader() } });
  if (res.status !== 200) return { status: res.status, res, text: async () => '', cancel: async () => {} };
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let ended = false;
  const readUntil = async (needle: string) => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      text += value;
    }
    return text;
  };
  await readUntil('event: ready');
  return {
    status: 200,
    res,
    readUntil,
    get ended() {
      return ended;
    },
    text: async () => text,
    cancel: () => reader.cancel().catch(() => {}),
  };
}

describe('event stream limits', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ runtime: { streamLimits: { perUser: 3, perInstance: 5 } } });
  });
  afterAll(() => ts?.stop());

  it('closes a user’s oldest stream past their limit, asking it to come back later', async () => {
    const { client } = await ts.signUp();
    const streams = [];
    for (let i = 0; i < 3; i++) streams.push(await openStream(ts, client));
    const fourth = await openStream(ts, client);
    expect(fourth.status).toBe(200);
    const oldest = streams[0] as Awaited<ReturnType<typeof openStream>> & { readUntil: (n: string) => Promise<string> };
    const text = await oldest.readUntil('never-appears');
    expect(text).toContain('event: evicted');
    expect(text).toContain('retry: 60000');
    expect(oldest.ended).toBe(true);
    for (const s of [...streams.slice(1), fourth]) await s.cancel();
  });

  it('refuses streams past the instance limit with a 503 to retry, and frees slots as streams close', async () => {
    const users = await Promise.all([ts.signUp(), ts.signUp()]);
    const open = [];
    for (const { client } of users) for (let i = 0; i < 3; i++) open.push(await openStream(ts, client));
    // 5 per instance: the sixth (of a user still under their own limit) was refused.
    expect(open.map((s) => s.status).sort()).toEqual([200, 200, 200, 200, 200, 503]);
    const refused = open.find((s) => s.status === 503)!;
    expect(refused.res.headers.get('retry-after')).toBe('10');
    expect(await refused.res.json()).toMatchObject({ code: 'too_many_streams' });
    await open.find((s) => s.status === 200)!.cancel();
    await new Promise((r) => setTimeout(r, 200));
    const third = await ts.signUp();
    expect((await openStream(ts, third.client)).status).toBe(200);
    for (const s of open) await s.cancel();
  });

  it('gives a stream’s slot back when the stream fails (a database blip reading the balance), so the instance keeps serving', async () => {
    const { client } = await ts.signUp();
    const others = await Promise.all([ts.signUp(), ts.signUp()]);
    const balance = vi.spyOn(ts.rt.credits, 'balance').mockRejectedValue(new Error('connection terminated unexpectedly'));
    try {
      // Five failed streams, as many as the instance allows (three from one person, the rest from others).
      for (const c of [client, client, client, others[0]!.client, others[1]!.client]) {
        const failed = await openStream(ts, c);
        expect(failed.status).toBe(200);
        // It ended before 'ready', and without the error's text (that is for the log).
        expect('ended' in failed && failed.ended).toBe(true);
        expect(await failed.text()).not.toContain('connection terminated');
      }
    } finally {
      balance.mockRestore();
    }
    // Someone else's first stream: no stream of their own to take the place of.
    const next = await openStream(ts, (await ts.signUp()).client);
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('event: credits');
    await next.cancel();
  });
});

describe('slow clients', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ timeouts: { headersMs: 1_000, bodyIdleMs: 500 } });
  });
  afterAll(() => ts?.stop());

  /** Writes `text` on a raw connection and resolves with how long the server kept it open. */
  function holdOpen(text: string): Promise<number> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = connect(ts.port, '127.0.0.1', () => socket.write(text));
      socket.on('data', () => {});
      socket.on('close', () => resolve(Date.now() - started));
      socket.on('error', () => {});
      setTimeout(() => socket.destroy(), 20_000).unref();
    });
  }

  it('drops a connection whose request body stalls, and one that never finishes its headers', async () => {
    const stalledBody = holdOpen(
      'POST /api/me/sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
    );
    const stalledHeaders = holdOpen('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    expect(await stalledBody).toBeLessThan(10_000);
    expect(await stalledHeaders).toBeLessThan(10_000);
  });

  it('takes its body timer off a kept-alive connection after each request, so none piles up', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(String(req.socket.listenerCount('timeout'))));
    });
    dropStalledBodies(server, { headersMs: 1_000, bodyIdleMs: 500, requestMs: 5_000, keepAliveMs: 5_000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const seen: { listeners: string; socket: unknown }[] = [];
      for (let i = 0; i < 15; i++) {
        seen.push(
          await new Promise((resolve, reject) => {
            const req = request(
              { port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', agent, headers: { 'content-length': 2 } },
              (res) => {
                let text = '';
                res.on('data', (chunk) => (text += chunk));
                res.on('end', () => resolve({ listeners: text, socket: req.socket }));
              },
            );
            req.on('error', reject);
            req.end('{}');
          }),
        );
      }
      expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
      // Node's own listener and, while a body arrives, ours: the same count for every request served.
      expect(seen.map((s) => s.listeners)).toEqual(Array(15).fill(seen[0]!.listeners));
      expect(Number(seen[0]!.listeners)).toBeLessThanOrEqual(2);
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it("keeps an idle kept-alive connection open past Node's 5 s, so that a client or balancer reusing it is not cut off", async () => {
    const socket = connect(ts.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    let closed = false;
    socket.on('close', () => (closed = true));
    const ask = async () => {
      const before = received.length;
      socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!received.slice(before).includes('\r\n\r\n') && !closed) await new Promise((r) => setTimeout(r, 20));
      return received.slice(before);
    };
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
      await new Promise((r) => setTimeout(r, 6_000));
      expect(closed).toBe(false);
      expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  }, 15_000);

  it('lets a slow but steady body through', async () => {
    const { client } = await ts.signUp();
    const body = JSON.stringify({ junk: 'x'.repeat(2000) });
    const chunks = body.match(/.{1,400}/g)!;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.shift();
        if (next === undefined) return controller.close();
        await new Promise((r) => setTimeout(r, 300));
        controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await client.fetch('/api/me/sync', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
  });
});
