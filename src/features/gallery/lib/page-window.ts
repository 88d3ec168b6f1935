/** One slot of the numbered pager: a page number or a gap. */
export type PagerSlot = number | 'gap';

/** Pages shown in full up to this many; beyond it a window with ellipses (product §4). */
const SHOW_ALL_UP_TO = 5;

/**
 * The numbered pager's slots: every page when there are 5 or fewer, otherwise the first and last page,
 * the current one and its neighbours, with a gap wherever pages are skipped. Near either end the window
 * widens so the pager keeps the same length: 1 2 3 4 … 9 · 1 … 4 5 6 … 9 · 1 … 6 7 8 9.
 */
export function pageWindow(page: number, pageCount: number): PagerSlot[] {
  if (pageCount <= SHOW_ALL_UP_TO) return Array.from({ length: pageCount }, (_, i) => i + 1);
  if (page <= 3) return [1, 2, 3, 4, 'gap', pageCount];
  if (page >= pageCount - 2) return [1, 'gap', pageCount - 3, pageCount - 2, pageCount - 1, pageCount];
  return [1, 'gap', page - 1, page, page + 1, 'gap', pageCount];
}
