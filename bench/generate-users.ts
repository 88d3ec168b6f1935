/**
 * The generate bench's users, on a worker thread of their own: each with one kept-alive connection (as each
 * browser keeps its own) sending POST /api/image/generate-image through node:http. The server's event loop and
 * heap then hold the server's work only; with the users' fetch calls on the server's thread, their JavaScript
 * (~10 % of the samples) and their garbage were counted as the server's (docs/decisions/014-generate-path.md).
 * The thread still shares the machine's cores with the server and the database.
 */
import { Agent, request } from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { loadNow } from './stats.ts';

export interface UsersPlan {
  url: string;
  /** One cookie header per user: the session of a signed-in user. */
  cookies: string[];
  body: unknown;
  sequentialRequests: number;
  pacedRounds: number;
  paceMs: number;
  saturationRequestsPerUser: number;
}

export interface Phase {
  times: number[];
  /** The machine's load when the phase ended. */
  load: string;
  seconds: number;
  /** When the phase ended, in ms since the epoch (performance.timeOrigin + now): comparable across threads. */
  endedAt: number;
}

export interface UsersResult {
  single: Phase;
  paced: Phase;
  saturated: Phase;
}

/** Runs the plan on a worker thread and resolves with each phase's times. */
export function runUsers(plan: UsersPlan): Promise<UsersResult> {
  const worker = new Worker(new URL(import.meta.url), { workerData: plan });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: UsersResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the users' thread stopped (exit code ${code})`)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(plan: UsersPlan): Promise<UsersResult> {
  const { hostname, port } = new URL(plan.url);
  const payload = Buffer.from(JSON.stringify(plan.body));
  const agents = plan.cookies.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const users = plan.cookies.map((_, i) => i);

  const generate = (user: number) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          hostname,
          port,
          path: '/api/image/generate-image',
          method: 'POST',
          agent: agents[user],
          headers: { 'content-type': 'application/json', 'content-length': payload.length, origin: plan.url, cookie: plan.cookies[user] },
        },
        (res) => {
          res.resume();
          res.once('end', () =>
            res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`generate-image answered ${res.statusCode}`)),
          );
        },
      );
      req.once('error', reject);
      req.end(payload);
    });

  const phase = async (body: (times: number[]) => Promise<unknown>): Promise<Phase> => {
    const times: number[] = [];
    const started = performance.now();
    await body(times);
    const ended = performance.now();
    return { times, load: loadNow(), seconds: (ended - started) / 1000, endedAt: performance.timeOrigin + ended };
  };

  const pass = async () => {
    const single = await phase(async (times) => {
      for (let i = 0; i < plan.sequentialRequests; i++) times.push(await generate(0));
    });
    // Each user starts at a random offset within one pace interval, then keeps its own pace.
    const paced = await phase((times) =>
      Promise.all(
        users.map(async (user) => {
          await sleep(Math.random() * plan.paceMs);
          for (let i = 0; i < plan.pacedRounds; i++) {
            const started = performance.now();
            times.push(await generate(user));
            await sleep(Math.max(0, plan.paceMs - (performance.now() - started)));
          }
        }),
      ),
    );
    // Closed loop, no pause: how far one instance goes when every user fires back to back.
    const saturated = await phase((times) =>
      Promise.all(
        users.map(async (user) => {
          for (let i = 0; i < plan.saturationRequestsPerUser; i++) times.push(await generate(user));
        }),
      ),
    );
    return { single, paced, saturated };
  };

  // Warm-up: the code paths one at a time, every user at once, then the whole protocol untimed, so that the
  // timed pass finds what a server that has been serving has: the connection pool at the size load gives it,
  // and the start's garbage collected. Timed straight after the start, the paced phase met V8's memory reducer
  // compacting what the start left (loading the modules, the sign-ups): pauses of 25–33 ms.
  for (let i = 0; i < 20; i++) await generate(i % users.length);
  await Promise.all(users.map(generate));
  await pass();
  const result = await pass();
  for (const agent of agents) agent.destroy();
  return result;
}

if (!isMainThread && parentPort) parentPort.postMessage(await run(workerData as UsersPlan));
