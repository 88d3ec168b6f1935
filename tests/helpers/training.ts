import { zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';
import { PORTRAITS, samplePhoto } from './photos.ts';
import type { TestClient } from './server.ts';

/** Near-zero training time and a fast runner, as in every test. */
export const FAST_TRAINING = { TRAINING_DURATION_SECONDS: '0', TRAINING_POLL_SECONDS: '0.05' };

/**
 * `n` different photos of one face each, as the submission's photo check requires: the sample portraits, then
 * their mirror images.
 */
export async function trainingPhotos(n: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const portrait = await samplePhoto(PORTRAITS[i % PORTRAITS.length]!, 160);
    out.push(i < PORTRAITS.length ? portrait : await sharp(portrait).flop().jpeg().toBuffer());
  }
  return out;
}

/** training_images.zip as the SPA builds it (spec §7), from these photos. */
export function trainingArchiveOf(photos: Buffer[]): Uint8Array {
  const files: Zippable = {};
  photos.forEach((p, i) => (files[`photo-${i + 1}.jpg`] = [p, { level: 0 }]));
  return zipSync(files);
}

/** training_images.zip of `n` good photos. */
export async function trainingArchive(n = 4): Promise<Uint8Array> {
  return trainingArchiveOf(await trainingPhotos(n));
}

/** Uploads a training archive through the uploader; returns its URL (throws on any other answer). */
export async function uploadArchive(client: TestClient, zip: Uint8Array): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'training_images.zip');
  const res = await client.fetch('/api/upload', { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
  return (await res.json()).url;
}

/** The training submission payload (spec §3) with the form's fields. */
export const trainingPayload = (url: string, extra: Record<string, unknown> = {}) => ({
  images_data_url: url,
  trigger_word: 'danap',
  create_masks: true,
  steps: 1000,
  is_style: false,
  character_name: 'Dana',
  gender: 'female',
  hair_color: 'brown',
  ...extra,
});

/** Polls `probe` until it gives a value. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 45_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
