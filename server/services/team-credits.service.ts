import { TEAM_TEXTS } from '@common/teams.ts';
import type { Db, Executor } from '../db/index.ts';
import type { LedgerKind } from '../db/schema.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { teamCreditsRepository as repo } from '../repositories/team-credits.repository.ts';
import { teamsRepository } from '../repositories/teams.repository.ts';

/**
 * A team's balance on the same rules as a person's (server/services/credits.service.ts): every change locks the
 * team's row, writes one ledger row keyed for idempotency and the new balance, and tells the team's leads (and
 * the member whose work it is) — all in the caller's transaction. Never below zero; a refund is keyed on its
 * debit, so it happens once. Plain functions of (transaction, event bus): the training and shoot paths, which
 * already hold both, refund team work without another service to wire (docs/decisions/022-teams.md).
 */
export interface TeamCreditChange {
  teamId: string;
  /** Who caused it (the buyer, the member whose work it pays). */
  userId: string | null;
  delta: number;
  kind: LedgerKind;
  reason: string;
  idempotencyKey: string;
}

export const insufficientTeamCredits = (required: number, available: number) =>
  new AppError(402, 'insufficient_team_credits', TEAM_TEXTS.notEnoughTeamCredits(required, available));

export async function applyTeamChange(
  tx: Executor,
  events: EventBus,
  change: TeamCreditChange,
): Promise<{ applied: boolean; balance: number }> {
  if (!Number.isInteger(change.delta) || change.delta === 0) throw new Error('delta must be a non-zero integer');
  const credits = await repo.lockBalance(tx, change.teamId);
  if (credits === undefined) throw notFound('There is no such team.');
  const balance = credits + change.delta;
  if (balance < 0) {
    if (await repo.keySeen(tx, change.idempotencyKey)) return { applied: false, balance: credits };
    throw insufficientTeamCredits(-change.delta, credits);
  }
  const told = new Set(await teamsRepository.leadIds(tx, change.teamId));
  if (change.userId) told.add(change.userId);
  const event = { type: 'team' as const, teamId: change.teamId, credits: balance };
  const applied = await repo.applyChange(
    tx,
    { ...change, balanceAfter: balance },
    [...told].map((userId) => events.notification(userId, event)),
  );
  return { applied, balance: applied ? balance : credits };
}

/** Debits team work (a member's team training or shoot) from the team's balance. */
export const debitTeam = (tx: Executor, events: EventBus, teamId: string, userId: string, amount: number, reason: string, key: string) =>
  applyTeamChange(tx, events, { teamId, userId, delta: -amount, kind: 'debit', reason, idempotencyKey: key });

/** Gives back a team debit (or part of one) at most once: keyed `refund:<key>` as personal refunds are. */
export const refundTeam = (tx: Executor, events: EventBus, teamId: string, userId: string, amount: number, reason: string, key: string) =>
  applyTeamChange(tx, events, { teamId, userId, delta: amount, kind: 'refund', reason, idempotencyKey: `refund:${key}` });

/** Credits bought for the team (a checkout's grant), once per payment. */
export const grantTeam = (db: Db, events: EventBus, teamId: string, userId: string, amount: number, reason: string, key: string) =>
  db.transaction((tx) => applyTeamChange(tx, events, { teamId, userId, delta: amount, kind: 'grant', reason, idempotencyKey: key }));

/**
 * Who pays for a piece of work: the team when the work is the team's, else the person. Every debit and refund
 * of a training or a shoot goes through here, so a personal action never charges the team and the reverse.
 */
export interface WorkPayer {
  userId: string;
  teamId: string | null;
}
export async function refundWork(
  tx: Executor,
  deps: {
    events: EventBus;
    credits: { refund(userId: string, amount: number, reason: string, debitKey: string, tx?: Executor): Promise<unknown> };
  },
  payer: WorkPayer,
  amount: number,
  reason: string,
  debitKey: string,
): Promise<void> {
  if (payer.teamId) await refundTeam(tx, deps.events, payer.teamId, payer.userId, amount, reason, debitKey);
  else await deps.credits.refund(payer.userId, amount, reason, debitKey, tx);
}
export async function debitWork(
  tx: Executor,
  deps: {
    events: EventBus;
    credits: { debit(userId: string, amount: number, reason: string, key: string, tx?: Executor): Promise<unknown> };
  },
  payer: WorkPayer,
  amount: number,
  reason: string,
  debitKey: string,
): Promise<void> {
  if (payer.teamId) await debitTeam(tx, deps.events, payer.teamId, payer.userId, amount, reason, debitKey);
  else await deps.credits.debit(payer.userId, amount, reason, debitKey, tx);
}
