import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import type { CreateImageNavigationState } from '@common/create-image-state';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { useToast } from '@/components/ui/toast';
import type { UpscaleFactor } from '@common/finishing';
import type { GenerationView } from '@common/generation';
import { downloadImage, useDeleteGeneration, useSetFavorite, useUpscale } from '../api';
import { absoluteImageUrl, type GalleryItem } from '../lib/gallery-item';
import { useUndoDelete } from './use-undo-delete';

/** Longer than the 2 s copy feedback: a failed download needs reading. */
const DOWNLOAD_ERROR_MS = 5000;

/** The actions a card and the viewer share; each reports its own outcome (toast or thrown error). */
export function useGalleryActions() {
  const { api, data } = useBackend();
  const toast = useToast();
  const navigate = useNavigate();
  const setFavorite = useSetFavorite();
  const deleteGeneration = useDeleteGeneration();
  const offerUndo = useUndoDelete();

  const download = useCallback(
    async (item: GalleryItem) => {
      try {
        await downloadImage(api, item);
      } catch (err) {
        console.error('Download failed', err);
        toast.show(`Failed to download image: ${errorMessage(err, 'unknown error')}. Please try again.`, {
          tone: 'error',
          durationMs: DOWNLOAD_ERROR_MS,
        });
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

  /**
   * To /app/create-image with the settings and prompt; the seed is cleared (product §2) unless the person asked
   * to keep it ('Keep the seed'), to change a word and keep the composition.
   */
  const regenerate = useCallback(
    (item: GalleryItem, opts: { keepSeed?: boolean } = {}) => {
      const remixSettings = opts.keepSeed && item.seed ? { ...item.remix, seed: item.seed } : item.remix;
      navigate('/app/create-image', { state: { remixSettings } satisfies CreateImageNavigationState });
    },
    [navigate],
  );

  /** 'Edit with a prompt': the create-image form starting from this image, its settings prefilled. */
  const editWithPrompt = useCallback(
    (item: GalleryItem) =>
      navigate('/app/create-image', {
        state: {
          remixSettings: item.remix,
          editSource: { id: item.id, imageUrl: item.imageUrl, width: item.width, height: item.height },
        } satisfies CreateImageNavigationState,
      }),
    [navigate],
  );

  /** Upscale 2× / 4×: the new generation, or the server's message (shown beside the buttons). */
  const upscaleMutation = useUpscale();
  const upscale = useCallback(
    async (item: GalleryItem, factor: UpscaleFactor): Promise<{ generation: GenerationView } | { error: string }> => {
      try {
        return { generation: (await upscaleMutation.mutateAsync({ id: item.id, factor })).generation };
      } catch (err) {
        console.warn('Upscale failed', err);
        return { error: errorMessage(err, 'The image could not be upscaled. Please try again.') };
      }
    },
    [upscaleMutation],
  );

  /** A generation by id, for the link to an image's source. */
  const loadGeneration = useCallback((id: string) => data.generation(id), [data]);

  // Favourite and delete failures are logged by the mutations, with no message to the user (product §8).
  const toggleFavorite = useCallback(
    (item: GalleryItem) =>
      setFavorite.mutateAsync({ id: item.id, isFavorite: !item.isFavorite }).then(
        () => true,
        () => false,
      ),
    [setFavorite],
  );
  /** Delete (card menu, viewer, phone sheet); a deleted image offers Undo for a few seconds. */
  const remove = useCallback(
    (item: GalleryItem) =>
      deleteGeneration.mutateAsync(item.id).then(
        () => {
          offerUndo([item.id]);
          return true;
        },
        () => false,
      ),
    [deleteGeneration, offerUndo],
  );

  return {
    download,
    copyImageUrl,
    copyPrompt,
    regenerate,
    editWithPrompt,
    upscale,
    loadGeneration,
    toggleFavorite,
    remove,
    favoritePending: setFavorite.isPending,
  };
}

export type GalleryActions = ReturnType<typeof useGalleryActions>;
