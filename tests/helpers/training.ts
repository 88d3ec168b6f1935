import { zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TrainingView } from '@common/training.ts';
import { PORTRAITS, samplePhoto } from './photos.ts';
import type { TestClient } from './server.ts';
import { uploadFile } from './uploads.ts';
import { waitFor } from './wait.ts';

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

/** training_images.zip as the SPA builds it (product §7), from these photos. */
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
export const uploadArchive = (client: TestClient, zip: Uint8Array): Promise<string> =>
  uploadFile(client, zip, 'training_images.zip', 'application/zip');

/** The training submission payload (product §3) with the form's fields. */
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

/** The user's trainings, as GET /api/trainings lists them (asserts it answers 200). */
/** The caller's trainings in a space (issue 49): `team`'s, or the personal ones. */
export async function listTrainings(client: TestClient, team?: string): Promise<TrainingView[]> {
  const res = await client.get(`/api/trainings${team ? `?team=${team}` : ''}`);
  expect(res.status).toBe(200);
  return (await res.json()).items;
}

/** Waits until the training submitted as `requestId` has ended (completed or failed), and returns it. */
export const trainingEnded = (client: TestClient, requestId: string, team?: string): Promise<TrainingView> =>
  waitFor('the training to end', async () =>
    (await listTrainings(client, team)).find((t) => t.request_id === requestId && t.status !== 'IN_PROGRESS'),
  );
