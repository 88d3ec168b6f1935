import sharp from 'sharp';
import { IMAGE_FORMATS } from '../../common/media.ts';
import { countedFaces, explicitScore, PHOTO_CHECK } from '../../common/photo-check.ts';
import { LIMITS } from '../../common/product.ts';
import { decodeRgb } from './analyse-image.ts';
import { detectFaces } from './human-model.ts';
import { nsfwScores } from './nsfw-model.ts';
import { blurOf, differenceHash, lumaOf, maskBoxes, meanOf } from './photo-measures.ts';
import type { PhotoMeasures } from './types.ts';

/**
 * Measures one training photo as shown (EXIF rotation applied): its size, faces, the tallest face's light and
 * blur, a difference hash and the NSFW classifier's scores. Never throws for a bad file: what could not be
 * read is reported in `format`, `error` and a null `decoded`.
 */
export async function measurePhoto(bytes: Uint8Array): Promise<PhotoMeasures> {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes).metadata();
  } catch (err) {
    return { format: null, width: 0, height: 0, error: (err as Error).message, decoded: null };
  }
  // EXIF orientations 5–8 turn the picture a quarter: its shown width is the stored height.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = (turned ? meta.height : meta.width) ?? 0;
  const height = (turned ? meta.width : meta.height) ?? 0;
  const base = { format: meta.format ?? null, width, height, error: null, decoded: null };
  // Only the formats the trainers read are decoded; anything else is reported as it is.
  if (!IMAGE_FORMATS.has(meta.format ?? '') || width * height > LIMITS.imageMaxPixels) return base;

  let img;
  try {
    img = await decodeRgb(bytes);
  } catch (err) {
    return { ...base, error: (err as Error).message };
  }
  // The classifier first: in this order the WASM heap, which keeps its largest size, settled ~10 MB lower.
  const nsfw = await nsfwScores(img);
  const faces = await detectFaces(img);
  const counted = countedFaces(faces);
  const main = counted[0];
  const faceLuma = main ? lumaOf(img, main.box) : null;
  // A face filling the frame can look explicit to the classifier; what is explicit stays so without faces.
  const nsfwFacesMasked =
    explicitScore(nsfw) >= PHOTO_CHECK.nsfwExplicit && counted.length
      ? await nsfwScores(
          maskBoxes(
            img,
            counted.map((f) => f.box),
          ),
        )
      : null;
  return {
    ...base,
    decoded: {
      faces,
      face: faceLuma ? { brightness: meanOf(faceLuma.values), blur: blurOf(faceLuma) } : null,
      // The face, when there is one: portraits against the same wall differ little anywhere else.
      hash: differenceHash(img, main?.box),
      nsfw,
      nsfwFacesMasked,
    },
  };
}
