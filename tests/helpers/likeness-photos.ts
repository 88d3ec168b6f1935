import sharp from 'sharp';
import { photosOfPerson } from '../../bench/photo-eval/set.ts';
import { portraitPhoto, PORTRAITS } from './photos.ts';

/**
 * People for the likeness bench and tests: each sample portrait of tests/helpers/photos.ts seen four ways
 * (as shot, mirrored, cropped closer, toned). A stand-in: the photo checks' evaluation set (bench/photo-eval)
 * has one person with several photos (the grid's man, 9 in its held-out half) and everyone else in one photo,
 * too few people with 3 or more photos for a reference built from a person's other photos. Its held-out half
 * replaces this once it has several such people.
 */
export async function heldOutPeople(): Promise<{ name: string; photos: Buffer[] }[]> {
  const people = [];
  for (const name of PORTRAITS) people.push({ name, photos: await photosOf(name) });
  return people;
}

/** One person's photos: a sample portrait as shot, mirrored, cropped closer and toned. */
export async function photosOf(name: (typeof PORTRAITS)[number]): Promise<Buffer[]> {
  const base = await portraitPhoto(name);
  return [
    base,
    await sharp(base).flop().jpeg({ quality: 90 }).toBuffer(),
    await sharp(base).extract({ left: 40, top: 40, width: 560, height: 700 }).resize(640, 800).jpeg({ quality: 90 }).toBuffer(),
    await sharp(base).modulate({ brightness: 1.08, saturation: 0.9 }).jpeg({ quality: 88 }).toBuffer(),
  ];
}

/**
 * Different real photos of one person, for the same-person check: the grid's man in the evaluation set's tuning
 * half (bench/photo-eval; the held-out half stays for the bench).
 */
export const onePersonPhotos = () => photosOfPerson('tuning', 'grid man');

/** A photo of someone else than onePersonPhotos' man. */
export const strangerPhoto = () => portraitPhoto('smilingWoman');
