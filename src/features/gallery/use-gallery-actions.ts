import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import type { CreateImageNavigationState } from '@common/create-image-state';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { useToast } from '@/components/ui/toast';
import { downloadImage, useDeleteGeneration, useSetFavorite } from './api';
import { absoluteImageUrl, type GalleryItem } from './gallery-item';

/** Longer than the 2 s copy feedback: a failed download needs reading. */
const DOWNLOAD_ERROR_MS = 5000;

/** The actions a card and the viewer share; each reports its own outcome (toast or thrown error). */
export function useGalleryActions() {
  const { api } = useBackend();
  const toast = useToast();
  const navigate = useNavigate();
  const setFavorite = useSetFavorite();
  const deleteGeneration = useDeleteGeneration();

  const download = useCallback(
    async (item: GalleryItem) => {
      try {
        await downloadImage(api, item);
      } catch (err) {
        console.error('Download failed', err);
        toast.show(`Failed to download image: ${errorMessage(err, 'unknown error')}. Please try again.`, { tone: 'error', durationMs: DOWNLOAD_ERROR_MS });
      }
    },
    [api, toast],
  );

  const copy = useCallback(
    async (text: string, copiedMessage: string) => {
      try {
        await navigator.clipboard.writeText(text);
        toast.show(copiedMessage, { tone: 'success' });
      } catch (err) {
        console.error('Copy failed', err);
        toast.show('Failed to copy', { tone: 'error' });
      }
    },
    [toast],
  );
  const copyImageUrl = useCallback((item: GalleryItem) => copy(absoluteImageUrl(item), 'Image URL Copied'), [copy]);
  const copyPrompt = useCallback((item: GalleryItem) => copy(item.prompt, 'Prompt Copied'), [copy]);

  /** To /app/create-image with the settings and prompt; the seed is never carried (spec §2). */
  const regenerate = useCallback(
    (item: GalleryItem) => navigate('/app/create-image', { state: { remixSettings: item.remix } satisfies CreateImageNavigationState }),
    [navigate],
  );

  // Favourite and delete failures are logged by the mutations, with no message to the user (spec §8).
  const toggleFavorite = useCallback(
    (item: GalleryItem) => setFavorite.mutateAsync({ id: item.id, isFavorite: !item.isFavorite }).then(() => true, () => false),
    [setFavorite],
  );
  const remove = useCallback((item: GalleryItem) => deleteGeneration.mutateAsync(item.id).then(() => true, () => false), [deleteGeneration]);

  return { download, copyImageUrl, copyPrompt, regenerate, toggleFavorite, remove, favoritePending: setFavorite.isPending };
}

export type GalleryActions = ReturnType<typeof useGalleryActions>;
