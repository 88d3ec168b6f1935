import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { PaymentProvider } from '../providers/payments/index.ts';
import type { StorageProvider } from '../providers/storage/index.ts';

export type ReadinessPart = 'database' | 'storage' | 'providers' | 'realtime';

export interface ReadinessReport {
  ready: boolean;
  /** The parts that fail, by name; 'shutdown' while the instance is stopping. */
  failing: (ReadinessPart | 'shutdown')[];
  checks: Record<ReadinessPart, { ok: boolean; ms: number }>;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
  /** From now on the instance reports itself not ready (shutdown: the load balancer stops sending to it). */
  stopping(): void;
  isStopping(): boolean;
}

/** A part that has not answered by then counts as failing. */
const CHECK_TIMEOUT_MS = 3000;
/** Probes arriving within this share one round of checks, so /readyz cannot be used to hammer storage. */
const REUSE_MS = 1000;

/**
 * GET /readyz: may this instance take traffic? The database answers with every migration applied, storage
 * takes a write, the providers' configuration is accepted, and the LISTEN connection that carries realtime
 * events is up. The report names the failing parts; why they fail is logged when a part's state changes
 * (the body is public, the reasons may name internal hosts).
 */
export function createReadiness(deps: {
  database: Database;
  storage: StorageProvider;
  /** Throws when a provider is known to refuse its configuration (createProviderCheck). */
  checkProviders(): Promise<void>;
  logger: Logger;
}): Readiness {
  const { database, storage, logger } = deps;
  const probeKey = `health/${database.instanceId}/probe`;
  let isStopping = false;
  let last: { at: number; report: Promise<ReadinessReport> } | undefined;
  const lastOk = new Map<ReadinessPart, boolean>();

  const parts: Record<ReadinessPart, () => Promise<void>> = {
    database: () => database.checkSchema(),
    async storage() {
      await storage.put(probeKey, Buffer.from(String(Date.now())), 'text/plain');
      await storage.delete(probeKey);
    },
    providers: () => deps.checkProviders(),
    async realtime() {
      const status = database.listenerStatus();
      if (!status.up) throw new Error(`the LISTEN connection is down since ${status.since.toISOString()}: ${status.error ?? 'unknown'}`);
    },
  };

  async function timed(part: ReadinessPart): Promise<{ ok: boolean; ms: number }> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let ok = true;
    try {
      await Promise.race([
        parts[part](),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
        }),
      ]);
      if (lastOk.get(part) === false) logger.info({ part }, 'readiness: part recovered');
    } catch (err) {
      ok = false;
      if (lastOk.get(part) !== false) logger.warn({ part, err }, 'readiness: part failing');
    } finally {
      clearTimeout(timer);
    }
    lastOk.set(part, ok);
    return { ok, ms: Math.round(performance.now() - started) };
  }

  async function run(): Promise<ReadinessReport> {
    const names = Object.keys(parts) as ReadinessPart[];
    const results = await Promise.all(names.map(timed));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i]])) as ReadinessReport['checks'];
    const failing: ReadinessReport['failing'] = names.filter((name) => !checks[name].ok);
    if (isStopping) failing.unshift('shutdown');
    return { ready: failing.length === 0, failing, checks };
  }

  return {
    check() {
      if (!last || Date.now() - last.at > REUSE_MS) last = { at: Date.now(), report: run() };
      return last.report;
    },
    stopping() {
      isStopping = true;
      last = undefined;
    },
    isStopping: () => isStopping,
  };
}

/** How often the payment provider is asked again whether it accepts the configuration. */
const PROVIDER_RECHECK_MS = 10 * 60_000;

/**
 * The providers part of readiness: the payment provider's verdict on its configuration (a revoked key, a
 * deleted or archived product), asked at start and every 10 minutes in the background, never on the probe's
 * path. A provider that cannot be reached says nothing about the configuration and leaves the verdict as it
 * was, so an outage at the provider does not take every instance out of the load balancer.
 */
export function createProviderCheck(deps: { payments: PaymentProvider; logger: Logger; recheckMs?: number }) {
  let problem: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let asking: Promise<void> | undefined;

  const ask = () =>
    (asking ??= (async () => {
      try {
        const found = (await deps.payments.configurationProblem?.()) ?? null;
        if (found && found !== problem)
          deps.logger.error({ provider: deps.payments.name, problem: found }, 'the payment provider refuses the configuration');
        if (!found && problem) deps.logger.info({ provider: deps.payments.name }, 'the payment provider accepts the configuration again');
        problem = found;
      } catch (err) {
        deps.logger.warn(
          { err, provider: deps.payments.name },
          'could not ask the payment provider about its configuration; will ask again',
        );
      } finally {
        asking = undefined;
      }
    })());

  return {
    /** Asks now (without holding up the start) and every recheck interval. */
    start() {
      timer = setInterval(() => void ask(), deps.recheckMs ?? PROVIDER_RECHECK_MS);
      timer.unref();
      void ask();
    },
    async check() {
      if (problem) throw new Error(problem);
    },
    async close() {
      clearInterval(timer);
      await asking;
    },
  };
}
