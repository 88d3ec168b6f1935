import { IMAGE_FORMATS } from '@common/media.ts';
import {
  acrossPhotos,
  countedPeople,
  explicitScore,
  orderProblems,
  PHOTO_CHECK,
  photoBadge,
  problemsOf,
  trainingPolicyRefusal,
  type PhotoCheck,
  type PhotoProblem,
  type RecordedPhotoCheck,
} from '@common/photo-check.ts';
import { LIMITS } from '@common/product.ts';
import { AppError, unavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { VisionAnalyser } from '../vision/analyser.ts';
import type { PhotoMeasures } from '../vision/types.ts';

/**
 * The training photo check: the vision worker measures, this service judges the measures
 * against common/photo-check.ts. It answers the page's free per-photo check, re-checks a training archive
 * at submit (never trusting the page's verdicts), and refuses NSFW images for prompt extraction.
 */

/** The page checks a smaller copy; the original's size (for 'too small' and 'too large') it states itself. */
export interface ShownSize {
  width: number;
  height: number;
}

function unreadableDetail(m: PhotoMeasures): string {
  if (m.format === 'heif')
    return 'HEIC and AVIF photos cannot be used. Choose JPG, PNG or WEBP (on an iPhone: Settings › Camera › Formats › Most Compatible).';
  if (m.format && !IMAGE_FORMATS.has(m.format)) return `${m.format.toUpperCase()} files cannot be used. Choose JPG, PNG or WEBP.`;
  if (m.format) return 'The photo is damaged and could not be read.';
  return 'This file is not a photo.';
}

/** The stated size, when it is a plausible original of the measured copy (same shape, not smaller). */
function originalSize(m: PhotoMeasures, stated?: ShownSize): ShownSize {
  if (!stated || stated.width < m.width || stated.height < m.height || m.height === 0) return m;
  const sameShape = Math.abs(stated.width / stated.height - m.width / m.height) <= 0.02 * (m.width / m.height);
  return sameShape ? stated : m;
}

/** The verdict on one photo from its measures; `stated` is the original's size when a copy was measured. */
export function judgePhoto(m: PhotoMeasures, stated?: ShownSize): PhotoCheck {
  const size = originalSize(m, stated);
  const verdict = (problems: PhotoProblem[], faces = 0, detail: string | null = null): PhotoCheck => ({
    problems: orderProblems(problems),
    faces,
    width: size.width,
    height: size.height,
    hash: null,
    embedding: null,
    detail,
  });
  if (size.width * size.height > LIMITS.imageMaxPixels) return verdict(['too-large']);
  if (!m.decoded) return verdict(['unreadable'], 0, unreadableDetail(m));

  const { decoded } = m;
  const problems: PhotoProblem[] = [];
  const masked = decoded.nsfwFacesMasked;
  if (explicitScore(decoded.nsfw) >= PHOTO_CHECK.nsfwExplicit && (!masked || explicitScore(masked) >= PHOTO_CHECK.nsfwExplicit)) {
    problems.push('not-allowed');
  }
  if (Math.min(size.width, size.height) < PHOTO_CHECK.minSidePx) problems.push('too-small');

  const counted = countedPeople(decoded.faces);
  const main = counted[0];
  const people = counted.length;
  if (!main) problems.push('no-face');
  else {
    if (people > 1) problems.push('several-people');
    // The box is a share of the photo's height; compare it with the short side.
    if ((main.box[3] * m.height) / Math.min(m.width, m.height) < PHOTO_CHECK.minFaceShare) problems.push('face-too-small');
    const face = decoded.face;
    if (face && face.brightness < PHOTO_CHECK.minFaceBrightness) problems.push('too-dark');
    if (face && face.brightness > PHOTO_CHECK.maxFaceBrightness) problems.push('too-bright');
    if (face && face.blur > PHOTO_CHECK.maxBlur) problems.push('blurry');
  }
  // Only a photo of one person is compared with the others, by its face.
  if (people !== 1) return verdict(problems, people);
  return { ...verdict(problems, people), hash: decoded.hash, embedding: main?.embedding?.map(roundEmbedding) ?? null };
}

/** Four decimals keep a face's similarity to the others within 0.001 and its JSON a third the size. */
const roundEmbedding = (v: number) => Math.round(v * 10_000) / 10_000;

/** The verdicts of a set of photos compared with each other (copies, another person), as the page words them. */
export function recordedChecks(checks: readonly PhotoCheck[], names: readonly string[]): RecordedPhotoCheck[] {
  const compared = acrossPhotos(checks);
  return checks.map((check, i) => ({
    name: names[i]!,
    badge: photoBadge(check, compared[i]),
    problems: problemsOf(check, compared[i]),
    faces: check.faces,
  }));
}

export interface PhotoCheckDeps {
  vision: VisionAnalyser;
  logger: Logger;
  /** Per photo, including any wait behind earlier ones (VISION_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

export type PhotoCheckService = ReturnType<typeof createPhotoCheckService>;

const NOT_CHECKED = 'Your photos could not be checked right now. Nothing was charged; please try again in a moment.';

export function createPhotoCheckService(deps: PhotoCheckDeps) {
  async function measure(image: Uint8Array, message: string): Promise<PhotoMeasures> {
    try {
      return await deps.vision.check(image, { timeoutMs: deps.timeoutMs });
    } catch (err) {
      deps.logger.error({ err }, 'photo check failed');
      throw unavailable(message, 'photo_check_unavailable');
    }
  }

  return {
    /** The free per-photo check behind the training page's badges. */
    async check(image: Uint8Array, stated?: ShownSize): Promise<PhotoCheck> {
      return judgePhoto(await measure(image, 'This photo could not be checked right now. Please try again in a moment.'), stated);
    },

    /**
     * Re-checks every photo of a training archive before it is paid for, and refuses (422, naming the photos)
     * when one is NSFW or fewer than the minimum show exactly one face. Returns each photo's verdict compared
     * with the others (copies and another person warn, as on the page), to be recorded with the training.
     */
    async assertTrainable(images: { name: string; bytes: Uint8Array }[]): Promise<RecordedPhotoCheck[]> {
      const checks: PhotoCheck[] = [];
      // One at a time: the worker queues anyway, and each photo's timeout then covers only its own work.
      for (const image of images) checks.push(judgePhoto(await measure(image.bytes, NOT_CHECKED)));
      const refusal = trainingPolicyRefusal(checks, (i) => `${i + 1} (${images[i]!.name})`);
      if (refusal) throw new AppError(422, 'photos_refused', refusal);
      return recordedChecks(
        checks,
        images.map((image) => image.name),
      );
    },

    /** Refuses an image the NSFW classifier flags (prompt extraction); a photo it cannot read passes on. */
    async assertAllowed(image: Uint8Array): Promise<void> {
      const verdict = judgePhoto(
        await measure(image, 'This image could not be checked right now. Nothing was charged; please try again in a moment.'),
      );
      if (verdict.problems.includes('not-allowed')) {
        throw new AppError(422, 'image_not_allowed', 'This image is not allowed: NSFW content is prohibited. Nothing was charged.');
      }
    },
  };
}
