import { useCallback } from 'react';
import { deletedMessage, restoreFailed, UNDO_TOAST_MS } from '@common/library';
import { ApiError } from '@/backend/api-error';
import { useToast } from '@/components/ui/toast';
import { useRestoreGenerations } from '../api';

/** An Undo that failed stays up longer than the 2 s notices: it needs reading. */
const UNDO_FAILED_MS = 5000;

/**
 * After a delete (product §4): the toast 'Image deleted' (or '3 images deleted') with 'Undo' for UNDO_TOAST_MS.
 * Undo asks the server to bring the images back; when it cannot (too late: the server's 410 says why; or no
 * answer), a red toast says the images could not be restored.
 */
export function useUndoDelete() {
  const toast = useToast();
  const { mutateAsync: restore } = useRestoreGenerations();
  return useCallback(
    (ids: string[]) =>
      toast.show(deletedMessage(ids.length), {
        durationMs: UNDO_TOAST_MS,
        action: {
          label: 'Undo',
          onClick: () =>
            void restore(ids).catch((err: unknown) => {
              console.warn('Undo of a delete failed', err);
              const message = err instanceof ApiError && err.status === 410 ? err.message : restoreFailed(ids.length);
              toast.show(message, { tone: 'error', durationMs: UNDO_FAILED_MS });
            }),
        },
      }),
    [toast, restore],
  );
}
