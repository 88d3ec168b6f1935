/**
 * The active space (issue 49): the person's own (null) or one of their teams (its id). Every list the data port
 * reads is read in it (`?team=<id>` locally, a team_id filter hosted), so pages and lists follow the switcher
 * without knowing about it. Kept per browser tab and remembered across visits; the session layer
 * (src/session/space.ts) checks it against the person's teams and clears the cached lists when it changes.
 */
const STORAGE_KEY = 'likeness.space';
const listeners = new Set<() => void>();

function stored(): string | null {
  try {
    return globalThis.localStorage?.getItem(STORAGE_KEY) || null;
  } catch {
    return null;
  }
}

let active: string | null = stored();

/** The team whose space is active, or null for the personal space. */
export const activeTeamId = (): string | null => active;

export function setActiveTeamId(teamId: string | null): void {
  if (teamId === active) return;
  active = teamId;
  try {
    if (teamId) globalThis.localStorage?.setItem(STORAGE_KEY, teamId);
    else globalThis.localStorage?.removeItem(STORAGE_KEY);
  } catch {
    // Private mode: the space holds for this page only.
  }
  for (const listener of listeners) listener();
}

export function subscribeActiveTeam(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `?team=<id>` (or `&team=`) for a list read in the active space; empty in the personal space. */
export const spaceParam = (sep: '?' | '&'): string => (active ? `${sep}team=${encodeURIComponent(active)}` : '');
