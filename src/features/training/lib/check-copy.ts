import { sniffImageType } from '@common/media';
import { CHECK_COPY_MAX_SIDE_PX } from '@common/photo-check';

/**
 * What the page sends to the photo check: a JPEG copy at most 1024 px long (a few hundred KB instead of a
 * phone's several MB), with the original's size as shown, so the server judges 'too small' and 'too large'
 * on the original. Files the browser cannot decode, and files that are not JPG, PNG or WEBP, go as they are
 * so the server can say what is wrong with them; a photo already small enough goes as it is too.
 */
export interface CheckCopy {
  file: Blob;
  /** The original's size when `file` is a smaller copy; null when `file` is the original. */
  original: { width: number; height: number } | null;
}

async function isTrainableType(file: Blob): Promise<boolean> {
  return sniffImageType(new Uint8Array(await file.slice(0, 12).arrayBuffer())) !== null;
}

export async function makeCheckCopy(file: Blob): Promise<CheckCopy> {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function' || !(await isTrainableType(file))) {
    return { file, original: null };
  }
  let bitmap: ImageBitmap;
  try {
    // EXIF rotation applied, as the photo is shown and as the server judges it.
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return { file, original: null };
  }
  try {
    const { width, height } = bitmap;
    const scale = CHECK_COPY_MAX_SIDE_PX / Math.max(width, height);
    if (scale >= 1) return { file, original: null };
    const canvas = new OffscreenCanvas(Math.round(width * scale), Math.round(height * scale));
    const context = canvas.getContext('2d');
    if (!context) return { file, original: null };
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return { file: await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 }), original: { width, height } };
  } finally {
    bitmap.close();
  }
}
