import { evalSet, photosOfPerson, portraitsNamed } from '../../bench/photo-eval/set.ts';
import { portraitPhoto } from './photos.ts';

/**
 * People for the likeness bench: the evaluation set's held-out half (bench/photo-eval), its man with nine photos
 * (each held against a reference from his other eight) and everyone else with one (each held against his).
 */
export async function heldOutPeople(): Promise<{ name: string; photos: Buffer[] }[]> {
  return (await evalSet('held-out')).people;
}

/**
 * Different real photos of one person, for the same-person check: the grid's man in the evaluation set's tuning
 * half (bench/photo-eval; the held-out half stays for the bench).
 */
export const onePersonPhotos = () => photosOfPerson('tuning', 'grid man');

/**
 * Two people of the evaluation set's tuning half whom the description model tells from onePersonPhotos' man: 0.36
 * and 0.41 against the reference face of his ten photos (strong from 0.63; the closest stranger in that half
 * measures 0.52).
 */
export const strangerPhotos = () => portraitsNamed('tuning', ['party1 person 3', 'party5 person 4']);

/** A photo of someone else than onePersonPhotos' man. */
export const strangerPhoto = () => portraitPhoto('smilingWoman');
