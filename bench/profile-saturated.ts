/**
 * `node --import tsx bench/profile-saturated.ts`: what the server's own thread does while 32 users send
 * generations back to back, on Postgres (TEST_DATABASE_URL, or BENCH_DATABASE_URL) with a zero-latency provider.
 * The users run on their worker as in `npm run bench generate` (bench/generate-users.ts), a short version of its
 * protocol; the CPU profile (of this thread only) and its garbage collections are cut to the saturated phase.
 * Prints the phase's figures, its collections, and the profile's summary with the callers of `writev` (the
 * statements' and responses' writes); the cut profile is written to $PROFILE_OUT (default
 * /tmp/saturated.cpuprofile). Record: docs/decisions/014-generate-path.md, the tenth pass.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeUsers, SATURATION_REQUESTS_PER_USER, USER_PACE_MS, USERS } from './generate.bench.ts';
import { runUsers } from './generate-users.ts';
import { percentile } from './stats.ts';
import { GENERATE_BODY, startZeroLatencyServer } from './zero-latency-server.ts';

const out = process.env.PROFILE_OUT ?? '/tmp/saturated.cpuprofile';

interface Profile {
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const collections: { at: number; ms: number; kind: string }[] = [];
const kinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
new PerformanceObserver((list) =>
  list.getEntries().forEach((e) => {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
    collections.push({ at: performance.timeOrigin + e.startTime, ms: e.duration, kind: kinds[kind] ?? String(kind) });
  }),
).observe({ entryTypes: ['gc'] });

const ts = await startZeroLatencyServer();
try {
  const clients = await makeUsers(ts, USERS);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const { saturated } = await runUsers({
    url: ts.url,
    cookies: clients.map((client) => client.cookieHeader()),
    body: GENERATE_BODY,
    sequentialRequests: 20,
    pacedRounds: 1,
    paceMs: USER_PACE_MS,
    saturationRequestsPerUser: SATURATION_REQUESTS_PER_USER,
  });
  const stoppedAt = performance.timeOrigin + performance.now();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };

  // The profile's clock is not the epoch: the phase is placed back from the moment the profile stopped.
  const phaseStart = saturated.endedAt - saturated.seconds * 1000;
  const from = profile.endTime - (stoppedAt - phaseStart) * 1000;
  const to = profile.endTime - (stoppedAt - saturated.endedAt) * 1000;
  let at = profile.startTime;
  const kept = profile.samples.map((_, i) => ((at += profile.timeDeltas[i]), at >= from && at <= to));
  profile.samples = profile.samples.filter((_, i) => kept[i]);
  profile.timeDeltas = profile.timeDeltas.filter((_, i) => kept[i]);
  writeFileSync(out, JSON.stringify(profile));

  const rate = saturated.times.length / saturated.seconds;
  console.log(
    `${USERS} users back to back: ${Math.round(rate)} req/s, p50 ${percentile(saturated.times, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(saturated.times, 99).toFixed(1)} ms over ${saturated.seconds.toFixed(2)} s (${saturated.load})`,
  );
  const during = collections.filter((c) => c.at + c.ms >= phaseStart && c.at <= saturated.endedAt);
  for (const kind of new Set(during.map((c) => c.kind))) {
    const pauses = during.filter((c) => c.kind === kind).map((c) => c.ms);
    console.log(
      `garbage collection, ${kind}: ${pauses.length}, ${pauses.reduce((a, b) => a + b, 0).toFixed(1)} ms in all, ` +
        `the longest ${Math.max(...pauses).toFixed(1)} ms`,
    );
  }
  console.log(`CPU profile of the server's thread in the phase: ${out}`);
  const summary = fileURLToPath(new URL('./profile-summary.mjs', import.meta.url));
  console.log(execFileSync(process.execPath, [summary, out, 'writev'], { encoding: 'utf8' }));
} finally {
  await ts.stop();
}
process.exit(0);
