import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { MAX_PAGE } from '@common/library';

/** The page number from the URL query (?page=N), so reload, back and shared links keep it; 1 when absent or bad. */
export function pageFromQuery(params: URLSearchParams): number {
  const text = params.get('page') ?? '';
  const n = /^\d+$/.test(text) ? Number(text) : 1;
  return n >= 1 && n <= MAX_PAGE ? n : 1;
}

export function useUrlPage() {
  const [params, setParams] = useSearchParams();
  const page = pageFromQuery(params);
  const setPage = useCallback(
    (next: number, opts: { replace?: boolean } = {}) =>
      setParams(
        (current) => {
          const updated = new URLSearchParams(current);
          if (next <= 1) updated.delete('page');
          else updated.set('page', String(next));
          return updated;
        },
        { replace: opts.replace },
      ),
    [setParams],
  );
  return { page, setPage, params, setParams };
}
