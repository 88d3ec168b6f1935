import { isLead } from '@common/teams.ts';
import type { Executor } from '../db/index.ts';
import { conflict, forbidden, notFound } from '../domain/errors.ts';
import { teamsRepository as repo, type TeamMemberRow } from '../repositories/teams.repository.ts';

/**
 * Who may do what in a team, in one place (every team service and the training and shoot paths ask here):
 * 404 for someone not in the team (nobody learns that another team exists), 403 for a role too low.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);
const noSuchTeam = () => notFound('There is no such team.');
const leadsOnly = () => forbidden('Only the team’s owner and managers can do this.', 'team_lead_only');
export const ownerOnly = () => forbidden('Only the team’s owner can do this.', 'team_owner_only');

export async function requireMembership(
  db: Executor,
  userId: string,
  teamId: string,
  need: 'member' | 'lead' | 'owner',
): Promise<TeamMemberRow> {
  if (!UUID.test(teamId)) throw noSuchTeam();
  const m = await repo.membership(db, teamId, userId);
  if (!m) throw noSuchTeam();
  if (need === 'lead' && !isLead(m.role)) throw leadsOnly();
  if (need === 'owner' && m.role !== 'owner') throw ownerOnly();
  return m;
}

/**
 * The space a list is read in (issue 49): a team the caller is in (404 otherwise), or null for their personal
 * space. Lists still show only the caller's own work; the space says whether it is their team work or personal.
 */
export async function spaceOf(db: Executor, userId: string, teamId: string | undefined): Promise<string | null> {
  if (!teamId) return null;
  await requireMembership(db, userId, teamId, 'member');
  return teamId;
}

/** The pack a member's team shoot uses: the team's look (refused until the owner has chosen one). */
export async function teamShootPack(db: Executor, userId: string, teamId: string): Promise<string> {
  await requireMembership(db, userId, teamId, 'member');
  const team = await repo.findTeam(db, teamId);
  if (!team?.packId) throw conflict('The team’s look is not chosen yet. Ask your team lead to choose it.', 'team_look_missing');
  return team.packId;
}

/** The hidden pack that holds a team's look (a catalogue pack's prompts in the team's frame, or the team's own). */
export const teamPackId = (teamId: string) => `team-${teamId.replace(/-/g, '')}`;
