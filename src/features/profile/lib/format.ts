/** 'Joined November 2026' (US English month and year). */
export function joinedLabel(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return `Joined ${date.toLocaleDateString('en-US', { month: 'long', year: 'numeric' })}`;
}

export const displayName = (fullName: string | null | undefined) => fullName?.trim() || 'Anonymous User';
