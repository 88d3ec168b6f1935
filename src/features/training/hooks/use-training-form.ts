import { useCallback, useEffect, useRef, useState } from 'react';
import { defaultTriggerWord, sanitizeTriggerWord, type Gender, type HairColor } from '@common/training';

export interface TrainingPhoto {
  id: string;
  file: File;
  /** An object URL for the thumbnail; revoked when the photo leaves the form. */
  previewUrl: string;
}

export interface TrainingFormState {
  photos: TrainingPhoto[];
  characterName: string;
  triggerWord: string;
  gender: Gender;
  hairColor: HairColor;
  /** The name field was left once: from then on a blank name is pointed out. */
  nameTouched: boolean;
}

const isImage = (file: File) => file.type.startsWith('image/') || (!file.type && /\.(jpe?g|png|webp|gif|heic|avif)$/i.test(file.name));

/**
 * The training form (product §3, §5): chosen photos with previews, name, trigger word (lowercase a–z, prefilled
 * with the e-mail default), gender and hair colour.
 */
export function useTrainingForm(email: string | null | undefined) {
  const fallbackTrigger = defaultTriggerWord(email);
  const initial = useCallback(
    (): TrainingFormState => ({
      photos: [],
      characterName: '',
      triggerWord: fallbackTrigger,
      gender: 'other',
      hairColor: 'other',
      nameTouched: false,
    }),
    [fallbackTrigger],
  );
  const [form, setForm] = useState<TrainingFormState>(initial);
  const photosRef = useRef(form.photos);
  photosRef.current = form.photos;
  useEffect(() => () => photosRef.current.forEach((p) => URL.revokeObjectURL(p.previewUrl)), []);

  /** Adds the images among `files`; returns the names of the files that are not images, left out. */
  const addFiles = useCallback((files: Iterable<File>): string[] => {
    const all = [...files];
    const added = all.filter(isImage).map((file) => ({ id: crypto.randomUUID(), file, previewUrl: URL.createObjectURL(file) }));
    if (added.length) setForm((f) => ({ ...f, photos: [...f.photos, ...added] }));
    return all.filter((file) => !isImage(file)).map((file) => file.name);
  }, []);

  const removePhotos = useCallback((ids: string[]) => {
    const gone = new Set(ids);
    setForm((f) => {
      f.photos.filter((p) => gone.has(p.id)).forEach((p) => URL.revokeObjectURL(p.previewUrl));
      return { ...f, photos: f.photos.filter((p) => !gone.has(p.id)) };
    });
  }, []);

  const removePhoto = useCallback((id: string) => removePhotos([id]), [removePhotos]);

  const reset = useCallback(() => {
    photosRef.current.forEach((p) => URL.revokeObjectURL(p.previewUrl));
    setForm(initial());
  }, [initial]);

  return {
    form,
    /** The trigger word used when the field is left empty, shown as its placeholder. */
    defaultTrigger: fallbackTrigger,
    addFiles,
    removePhoto,
    removePhotos,
    reset,
    setCharacterName: (characterName: string) => setForm((f) => ({ ...f, characterName })),
    touchName: () => setForm((f) => (f.nameTouched ? f : { ...f, nameTouched: true })),
    setTriggerWord: (value: string) => setForm((f) => ({ ...f, triggerWord: sanitizeTriggerWord(value) })),
    setGender: (gender: Gender) => setForm((f) => ({ ...f, gender })),
    setHairColor: (hairColor: HairColor) => setForm((f) => ({ ...f, hairColor })),
  };
}

export type TrainingFormApi = ReturnType<typeof useTrainingForm>;
