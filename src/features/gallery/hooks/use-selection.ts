import { useCallback, useState } from 'react';
import { MAX_SELECTION } from '@common/library';

export interface Selection {
  active: boolean;
  ids: string[];
  has(id: string): boolean;
  /** Adds or removes one image; false when adding would pass MAX_SELECTION (nothing changes then). */
  toggle(id: string): boolean;
  start(): void;
  /** Leaves select mode and forgets the selection. */
  stop(): void;
  clear(): void;
}

/** Select mode's state: which images are chosen (across pages), at most MAX_SELECTION of them. */
export function useSelection(): Selection {
  const [active, setActive] = useState(false);
  const [ids, setIds] = useState<string[]>([]);
  const has = useCallback((id: string) => ids.includes(id), [ids]);
  const toggle = useCallback(
    (id: string) => {
      if (ids.includes(id)) {
        setIds(ids.filter((x) => x !== id));
        return true;
      }
      if (ids.length >= MAX_SELECTION) return false;
      setIds([...ids, id]);
      return true;
    },
    [ids],
  );
  return {
    active,
    ids,
    has,
    toggle,
    start: () => setActive(true),
    stop: () => {
      setActive(false);
      setIds([]);
    },
    clear: () => setIds([]),
  };
}
