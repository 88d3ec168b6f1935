import { useCallback } from 'react';
import { UNDO_TOAST_MS } from '@common/library';
import { CHARACTER_DELETED, CHARACTER_RESTORE_FAILED, type TrainingView } from '@common/training';
import { ApiError } from '@/backend/api-error';
import { useToast } from '@/components/ui/toast';
import { useCharacterActions } from '../api';

/** An Undo that failed stays up longer than the 2 s notices: it needs reading. */
const UNDO_FAILED_MS = 5000;

/**
 * 'Delete' in Previous Trainings, then (product §4) the toast 'Character deleted' with 'Undo' for UNDO_TOAST_MS,
 * as an image's delete does (features/gallery/hooks/use-undo-delete.ts). A training that was still running was
 * cancelled and refunded by the delete: its toast has no Undo. When Undo cannot bring the character back (too
 * late: the server's 410 says why; or no answer), a red toast says so.
 */
export function useDeleteCharacter() {
  const toast = useToast();
  const actions = useCharacterActions();
  return useCallback(
    async (training: TrainingView) => {
      await actions.remove(training.id);
      const undo = {
        label: 'Undo',
        onClick: () =>
          void actions.restore(training.id).catch((err: unknown) => {
            console.warn('Undo of a character delete failed', err);
            const message = err instanceof ApiError && err.status === 410 ? err.message : CHARACTER_RESTORE_FAILED;
            toast.show(message, { tone: 'error', durationMs: UNDO_FAILED_MS });
          }),
      };
      toast.show(CHARACTER_DELETED, { durationMs: UNDO_TOAST_MS, action: training.status === 'IN_PROGRESS' ? undefined : undo });
    },
    [toast, actions],
  );
}
