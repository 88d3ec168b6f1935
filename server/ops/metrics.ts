import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LedgerKind } from '../db/schema.ts';

/** How a paid generation ended: an image stored, or its credits refunded (NSFW and timeouts are refunded too). */
export type GenerationOutcome = 'stored' | 'refunded' | 'nsfw' | 'timeout';
export type TrainingOutcome = 'completed' | 'failed';
export type MailOutcome = 'sent' | 'retried' | 'given_up' | 'skipped';

/** What the gauges read at scrape time; set once the runtime has built the parts they describe. */
export interface MetricSources {
  sseConnections(): number;
  /** Jobs this instance holds a lease on, and jobs waiting (for a provider slot here, or trainings due). */
  jobs(): Promise<{ kind: 'paid_call' | 'training' | 'shoot_photo'; state: 'leased' | 'waiting'; count: number }[]>;
  visionQueueLength(): number;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The server's Prometheus metrics (GET /metrics). One registry per runtime, so several runtimes in one
 * process (tests) do not share counters. HTTP routes are labelled by their pattern, never the raw path, so
 * the number of series stays bounded.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let sources: MetricSources | undefined;

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request (to the first byte of a stream), by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const generations = new Counter({
    name: 'likeness_generations_total',
    help: 'Paid generations ended: stored (image kept) or refunded; nsfw and timeout are refunded too.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const providerDuration = new Histogram({
    name: 'likeness_generation_provider_duration_seconds',
    help: 'Time the image provider took for one generation, by provider.',
    labelNames: ['provider'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300],
    registers,
  });
  const trainings = new Counter({
    name: 'likeness_trainings_total',
    help: 'Character trainings ended, by outcome (failed ones are refunded).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const trainingDuration = new Histogram({
    name: 'likeness_training_duration_seconds',
    help: 'Time from a training submission to its end, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 5400],
    registers,
  });
  const credits = new Counter({
    name: 'likeness_credits_total',
    help: 'Credits moved by committed ledger changes: debited, refunded, granted, or added/removed by adjustments.',
    labelNames: ['change'] as const,
    registers,
  });
  const mail = new Counter({
    name: 'likeness_mail_total',
    help: 'Outgoing messages by kind and outcome: sent, retried (an attempt failed; tried again later), given_up (undeliverable after 24 hours or refused for good), skipped (no longer wanted).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  new Gauge({
    name: 'likeness_sse_connections',
    help: 'Open server-sent event streams on this instance.',
    registers,
    collect() {
      this.set(sources?.sseConnections() ?? 0);
    },
  });
  new Gauge({
    name: 'likeness_jobs',
    help: "Jobs leased by this instance (paid_call: generations and prompt extractions; training), and jobs waiting (generations for a provider slot or the same user's previous one here; trainings due and not leased, database-wide).",
    labelNames: ['kind', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      for (const { kind, state, count } of (await sources?.jobs()) ?? []) this.set({ kind, state }, count);
    },
  });
  new Gauge({
    name: 'likeness_vision_queue_length',
    help: 'Images waiting for or in the built-in image analyser on this instance.',
    registers,
    collect() {
      this.set(sources?.visionQueueLength() ?? 0);
    },
  });

  const CHANGE: Record<LedgerKind, string> = { debit: 'debited', refund: 'refunded', grant: 'granted', adjustment: '' };

  return {
    registry,
    watch(s: MetricSources) {
      sources = s;
    },
    httpRequest(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    generationEnded(outcome: GenerationOutcome) {
      generations.inc({ outcome });
    },
    providerCall(provider: string, seconds: number) {
      providerDuration.observe({ provider }, seconds);
    },
    trainingEnded(outcome: TrainingOutcome, seconds: number) {
      trainings.inc({ outcome });
      trainingDuration.observe({ outcome }, seconds);
    },
    mailEnded(kind: string, outcome: MailOutcome) {
      mail.inc({ kind, outcome });
    },
    creditsChanged(kind: LedgerKind, delta: number) {
      credits.inc({ change: CHANGE[kind] || (delta > 0 ? 'added' : 'removed') }, Math.abs(delta));
    },
  };
}
