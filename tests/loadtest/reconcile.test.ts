import { describe, expect, it } from 'vitest';
import { matchStream, reconcile, type Books, type Observations } from '../../loadtest/reconcile.ts';

const U = 'user-1';
let clock = 0;
const at = () => new Date(Date.UTC(2026, 10, 1) + clock++ * 1000);

/**
 * The books of one user who got 100 credits, made two images (one stored, one refunded) and one caption:
 * balances 0 → 100 → 90 → 80 → 90 → 88.
 */
function goodBooks(): Books {
  clock = 0;
  return {
    users: [{ id: U, credits: 88, publicCredits: 88 }],
    ledger: [
      { userId: U, delta: 100, kind: 'grant', idempotencyKey: 'payment:sandbox:tx:1', balanceAfter: 100, createdAt: at() },
      { userId: U, delta: -10, kind: 'debit', idempotencyKey: 'generation:g1', balanceAfter: 90, createdAt: at() },
      { userId: U, delta: -10, kind: 'debit', idempotencyKey: 'generation:g2', balanceAfter: 80, createdAt: at() },
      { userId: U, delta: 10, kind: 'refund', idempotencyKey: 'refund:generation:g2', balanceAfter: 90, createdAt: at() },
      { userId: U, delta: -2, kind: 'debit', idempotencyKey: 'caption:c1', balanceAfter: 88, createdAt: at() },
    ],
    jobs: [
      { id: 'g1', userId: U, kind: 'generation', status: 'SUCCEEDED', generationId: 'img1' },
      { id: 'g2', userId: U, kind: 'generation', status: 'FAILED', generationId: null },
      { id: 'c1', userId: U, kind: 'caption', status: 'SUCCEEDED', generationId: null },
    ],
    generations: [{ id: 'img1', userId: U, stored: true }],
  };
}

function goodObservations(): Observations {
  return {
    // One stream run from the start to the end of the run.
    streams: new Map([[U, [{ values: [0, 100, 90, 80, 90, 88], cut: false }]]]),
    answers: [
      { userId: U, kind: 'generation', status: 200, generationId: 'img1' },
      { userId: U, kind: 'generation', status: 502 },
      { userId: U, kind: 'caption', status: 200 },
    ],
  };
}

const failing = (books: Books, seen: Observations) => reconcile(books, seen).filter((c) => !c.ok);

describe('load test reconciliation', () => {
  it('passes books that add up', () => {
    const checks = reconcile(goodBooks(), goodObservations());
    expect(checks.map((c) => c.ok)).toEqual([true, true, true, true, true]);
    expect(checks[0].detail).toBe('2 debits: 1 stored images, 1 refunds');
  });

  it('fails a debit with neither an image nor a refund, one with both, and one refunded twice', () => {
    const neither = goodBooks();
    neither.ledger = neither.ledger.filter((l) => l.idempotencyKey !== 'refund:generation:g2');
    expect(failing(neither, goodObservations()).map((c) => c.name)).toContain(
      'every generation debit ended in exactly one stored image or one refund',
    );

    const both = goodBooks();
    both.ledger.push({ userId: U, delta: 10, kind: 'refund', idempotencyKey: 'refund:generation:g1', balanceAfter: 98, createdAt: at() });
    expect(failing(both, goodObservations())[0].detail).toContain('job g1 is SUCCEEDED with 1 refund');

    const twice = goodBooks();
    twice.ledger.push({ ...twice.ledger[3], createdAt: at() });
    expect(failing(twice, goodObservations())[0].detail).toContain('job g2 is FAILED with 2 refunds');
  });

  it('fails a stored generation whose image is missing, and a job left pending', () => {
    const missing = goodBooks();
    missing.generations[0].stored = false;
    expect(failing(missing, goodObservations())[0].detail).toContain('generation img1 has no image in storage');

    const pending = goodBooks();
    pending.jobs[1].status = 'PENDING';
    pending.ledger = pending.ledger.filter((l) => l.idempotencyKey !== 'refund:generation:g2');
    expect(failing(pending, goodObservations())[0].detail).toContain('job g2 is still pending');
  });

  it('fails a caption debit that was neither delivered nor refunded', () => {
    const books = goodBooks();
    books.jobs[2].status = 'FAILED';
    expect(failing(books, goodObservations()).map((c) => c.name)).toContain(
      'every prompt extraction debit ended in exactly one delivered caption or one refund',
    );
  });

  it("fails a ledger that does not sum to the user's balance, or whose balances do not follow each other", () => {
    const sum = goodBooks();
    sum.users[0].credits = 98;
    expect(failing(sum, goodObservations()).map((c) => c.name)).toContain("each user's ledger sum equals their balance");

    const publicCopy = goodBooks();
    publicCopy.users[0].publicCredits = 90;
    expect(failing(publicCopy, goodObservations())[0].detail).toContain('public balance 90');

    const chain = goodBooks();
    chain.ledger[2].balanceAfter = 85;
    expect(failing(chain, goodObservations()).map((c) => c.name)).toContain("each user's ledger sum equals their balance");
  });

  it('fails a stream that missed a change, got one twice, or never reached the final balance', () => {
    const books = goodBooks();
    const withStream = (values: number[], cut = false): Observations => ({
      ...goodObservations(),
      streams: new Map([[U, [{ values, cut }]]]),
    });
    expect(failing(books, withStream([0, 100, 80, 90, 88]))).toHaveLength(1);
    expect(failing(books, withStream([0, 100, 90, 90, 80, 90, 88]))).toHaveLength(1);
    expect(failing(books, withStream([0, 100, 90, 80, 90]))).toHaveLength(1);
    // Cut by its instance's death, a run may stop early.
    expect(failing(books, withStream([0, 100, 90, 80, 90], true))).toHaveLength(0);
  });

  it('accepts the first change twice right after the starting balance, and a reconnect that catches up', () => {
    expect(matchStream([0, 100, 90, 80], [{ values: [100, 100, 90, 80], cut: false }])).toBeNull();
    // Cut after 90; reconnected while the balance was 80 (the change to 80 was never pushed to it).
    expect(
      matchStream(
        [0, 100, 90, 80, 70],
        [
          { values: [0, 100, 90], cut: true },
          { values: [80, 70], cut: false },
        ],
      ),
    ).toBeNull();
    // A reconnect cannot go back in time.
    expect(
      matchStream(
        [0, 100, 90, 80, 70],
        [
          { values: [0, 100, 90, 80], cut: true },
          { values: [100, 90, 80, 70], cut: false },
        ],
      ),
    ).not.toBeNull();
    expect(matchStream([0, 100], [])).toBe('the stream saw no balance at all');
  });

  it('fails an image answered 200 that is not stored, and a success the user was never told of', () => {
    const seen = goodObservations();
    seen.answers[0].generationId = 'img-unknown';
    expect(failing(goodBooks(), seen).map((c) => c.name)).toEqual(['every answer users got agrees with the books']);

    const untold = goodObservations();
    untold.answers[0].status = 503;
    expect(failing(goodBooks(), untold).map((c) => c.name)).toEqual(['every answer users got agrees with the books']);
    // Unless its answer was lost with the connection.
    untold.answers[0].status = 0;
    expect(failing(goodBooks(), untold)).toEqual([]);
  });
});
