/**
 * The load test's reconciliation: what the database and storage hold after the run, checked against itself
 * and against what the simulated users saw. Pure, so tests can feed it books that are wrong on purpose.
 */

export interface LedgerRow {
  userId: string;
  delta: number;
  kind: string;
  idempotencyKey: string;
  balanceAfter: number;
  /** When the change was applied (the user's row locked): orders one user's rows. */
  createdAt: Date;
}

export interface JobRow {
  id: string;
  userId: string;
  kind: 'generation' | 'caption';
  status: string;
  generationId: string | null;
}

export interface GenerationRow {
  id: string;
  userId: string;
  /** Whether its image is in storage. */
  stored: boolean;
}

export interface UserBalance {
  id: string;
  credits: number;
  /** user_public_meta.credits, the copy realtime readers use. */
  publicCredits: number | null;
}

/** What the database and storage hold once every job has ended. */
export interface Books {
  users: UserBalance[];
  ledger: LedgerRow[];
  jobs: JobRow[];
  generations: GenerationRow[];
}

/**
 * One run of a user's event stream: `values` are the credits events in the order they arrived, the first
 * being the balance the stream started from (on connect, or after a `resync`). `cut` is true when the stream
 * ended because its instance died, so the changes after its last event may never have reached it.
 */
export interface StreamRun {
  values: number[];
  cut: boolean;
}

/** A paid request's answer as the simulated user got it. */
export interface PaidAnswer {
  userId: string;
  kind: 'generation' | 'caption';
  /** HTTP status, or 0 when no answer came (connection lost). */
  status: number;
  generationId?: string;
}

export interface Observations {
  streams: Map<string, StreamRun[]>;
  answers: PaidAnswer[];
}

export interface Check {
  name: string;
  ok: boolean;
  /** Counts when it holds; the first mismatches when it does not. */
  detail: string;
}

const MAX_LISTED = 5;

function check(name: string, problems: string[], summary: string): Check {
  const ok = problems.length === 0;
  const more = problems.length > MAX_LISTED ? ` (and ${problems.length - MAX_LISTED} more)` : '';
  return { name, ok, detail: ok ? summary : problems.slice(0, MAX_LISTED).join('; ') + more };
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

/** Every debit of a paid job ended exactly once: its result kept (stored image, delivered caption) or one refund. */
function paidJobsCheck(books: Books, kind: 'generation' | 'caption'): Check {
  const problems: string[] = [];
  const byKey = groupBy(books.ledger, (l) => l.idempotencyKey);
  const jobs = new Map(books.jobs.filter((j) => j.kind === kind).map((j) => [j.id, j]));
  const generations = new Map(books.generations.map((g) => [g.id, g]));
  let debits = 0;
  let kept = 0;
  let refunded = 0;
  for (const debit of books.ledger.filter((l) => l.kind === 'debit' && l.idempotencyKey.startsWith(`${kind}:`))) {
    debits++;
    const id = debit.idempotencyKey.slice(kind.length + 1);
    const job = jobs.get(id);
    const refunds = byKey.get(`refund:${debit.idempotencyKey}`)?.length ?? 0;
    if (!job) {
      problems.push(`debit ${debit.idempotencyKey} has no job`);
      continue;
    }
    const generation = job.generationId ? generations.get(job.generationId) : undefined;
    const delivered = job.status === 'SUCCEEDED' && (kind === 'caption' || (generation?.stored ?? false));
    if (job.status === 'PENDING') problems.push(`job ${id} is still pending`);
    else if (delivered && refunds === 0) kept++;
    else if (job.status === 'FAILED' && refunds === 1) refunded++;
    else if (job.status === 'SUCCEEDED' && kind === 'generation' && !generation) problems.push(`job ${id} succeeded without a generation`);
    else if (job.status === 'SUCCEEDED' && kind === 'generation' && !generation!.stored)
      problems.push(`generation ${job.generationId} has no image in storage`);
    else problems.push(`job ${id} is ${job.status} with ${refunds} refund${refunds === 1 ? '' : 's'}`);
  }
  const debited = new Set(books.ledger.filter((l) => l.kind === 'debit').map((l) => l.idempotencyKey));
  for (const refund of books.ledger.filter((l) => l.kind === 'refund' && l.idempotencyKey.startsWith(`refund:${kind}:`))) {
    if (!debited.has(refund.idempotencyKey.slice('refund:'.length))) problems.push(`${refund.idempotencyKey} refunds no debit`);
  }
  const result = kind === 'generation' ? 'stored image' : 'delivered caption';
  return check(
    `every ${kind === 'generation' ? 'generation' : 'prompt extraction'} debit ended in exactly one ${result} or one refund`,
    problems,
    `${debits} debits: ${kept} ${result}s, ${refunded} refunds`,
  );
}

/** The user's balances in the order they went through: 0, then each change's balance after. */
function balanceHistory(rows: LedgerRow[]): number[] {
  const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return [0, ...ordered.map((r) => r.balanceAfter)];
}

function ledgerCheck(books: Books): Check {
  const problems: string[] = [];
  const byUser = groupBy(books.ledger, (l) => l.userId);
  for (const user of books.users) {
    const rows = byUser.get(user.id) ?? [];
    const sum = rows.reduce((total, r) => total + r.delta, 0);
    if (sum !== user.credits) problems.push(`user ${user.id}: ledger sums to ${sum}, balance is ${user.credits}`);
    if (user.publicCredits !== null && user.publicCredits !== user.credits) {
      problems.push(`user ${user.id}: public balance ${user.publicCredits}, balance ${user.credits}`);
    }
    const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    let running = 0;
    for (const row of ordered) {
      running += row.delta;
      if (row.balanceAfter !== running || running < 0) {
        problems.push(`user ${user.id}: ${row.idempotencyKey} records balance ${row.balanceAfter}, the ledger says ${running}`);
        break;
      }
    }
  }
  return check("each user's ledger sum equals their balance", problems, `${books.users.length} users, ${books.ledger.length} ledger rows`);
}

/**
 * A stream run is right when its values are a stretch of the user's balance history with nothing skipped,
 * repeated or reordered: it starts at some balance and then shows every change after it, in order. The one
 * value that may appear twice is the first change, right after the starting balance: an event that arrived
 * while the stream read the starting balance is the very change that read saw. A run that was not cut must
 * reach the final balance; each run starts no earlier than where the one before it got to.
 */
export function matchStream(history: number[], runs: StreamRun[]): string | null {
  let from = 0;
  for (const [n, run] of runs.entries()) {
    const values = run.values.length > 1 && run.values[1] === run.values[0] ? [run.values[0], ...run.values.slice(2)] : run.values;
    if (values.length === 0) continue;
    let matched = -1;
    for (let start = from; start < history.length && matched < 0; start++) {
      if (start + values.length > history.length) break;
      if (values.every((v, i) => history[start + i] === v)) matched = start;
    }
    if (matched < 0) return `stream run ${n + 1} [${values.join(', ')}] is not a stretch of the balance history [${history.join(', ')}]`;
    const end = matched + values.length - 1;
    if (!run.cut && n === runs.length - 1 && end !== history.length - 1) {
      return `the last stream run ended at ${values.at(-1)}, not at the final balance ${history.at(-1)}`;
    }
    from = end;
  }
  if (runs.length === 0 || runs.every((r) => r.values.length === 0)) return 'the stream saw no balance at all';
  return null;
}

function streamsCheck(books: Books, seen: Observations): Check {
  const problems: string[] = [];
  const byUser = groupBy(books.ledger, (l) => l.userId);
  let runs = 0;
  let events = 0;
  for (const user of books.users) {
    const userRuns = seen.streams.get(user.id) ?? [];
    runs += userRuns.length;
    events += userRuns.reduce((n, r) => n + r.values.length, 0);
    const problem = matchStream(balanceHistory(byUser.get(user.id) ?? []), userRuns);
    if (problem) problems.push(`user ${user.id}: ${problem}`);
  }
  return check(
    "every credit change reached the user's event stream on whichever instance it was connected to",
    problems,
    `${books.users.length} users, ${runs} stream runs, ${events} balance events`,
  );
}

/** What users were told agrees with the books: every success they saw is kept, and nothing kept went unanswered. */
function answersCheck(books: Books, seen: Observations): Check {
  const problems: string[] = [];
  const generations = new Map(books.generations.map((g) => [g.id, g]));
  for (const answer of seen.answers) {
    if (answer.kind !== 'generation' || answer.status !== 200) continue;
    const generation = answer.generationId ? generations.get(answer.generationId) : undefined;
    if (!generation?.stored) problems.push(`generation ${answer.generationId} was answered 200 but is not stored`);
  }
  const answersByUser = groupBy(seen.answers, (a) => `${a.userId}:${a.kind}`);
  const jobsByUser = groupBy(books.jobs, (j) => `${j.userId}:${j.kind}`);
  for (const [key, answers] of answersByUser) {
    const succeeded = (jobsByUser.get(key) ?? []).filter((j) => j.status === 'SUCCEEDED').length;
    const ok = answers.filter((a) => a.status === 200).length;
    const unanswered = answers.filter((a) => a.status === 0).length;
    // A success the user never heard of is only possible for a request whose answer was lost.
    if (succeeded < ok || succeeded > ok + unanswered) {
      problems.push(`${key}: ${succeeded} succeeded, ${ok} answered 200, ${unanswered} without an answer`);
    }
  }
  const ok = seen.answers.filter((a) => a.status === 200).length;
  const lost = seen.answers.filter((a) => a.status === 0).length;
  return check(
    'every answer users got agrees with the books',
    problems,
    `${seen.answers.length} paid requests: ${ok} succeeded, ${lost} lost their answer`,
  );
}

export function reconcile(books: Books, seen: Observations): Check[] {
  return [
    paidJobsCheck(books, 'generation'),
    paidJobsCheck(books, 'caption'),
    ledgerCheck(books),
    streamsCheck(books, seen),
    answersCheck(books, seen),
  ];
}
