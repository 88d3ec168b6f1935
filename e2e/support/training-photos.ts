import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { portraitPhoto, PORTRAITS } from '../../tests/helpers/photos';

/** Real portraits (the sample photos inside @vladmandic/human), one person each; mirrored after the fifth. */
export async function trainingPhotos(n: number): Promise<{ name: string; mimeType: string; buffer: Buffer }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const portrait = await portraitPhoto(PORTRAITS[i % PORTRAITS.length]!);
    const buffer = i < PORTRAITS.length ? portrait : await sharp(portrait).flop().jpeg().toBuffer();
    out.push({ name: `photo-${i + 1}.jpg`, mimeType: 'image/jpeg', buffer });
  }
  return out;
}

/**
 * Photos of one person (the likeness check needs a character whose photos agree), as the fal fake returns them
 * for that person; and people of the evaluation set the description model tells from him, whom it sends when
 * told to miss (tests/helpers/likeness-photos.ts).
 */
export { onePersonPhotos, strangerPhotos } from '../../tests/helpers/likeness-photos';

/**
 * Clicks Start Training and, when the checked photos have problems (trainingPhotos are different people, so
 * the photos checked in time are 'Not the same person'), answers its one question 'Train anyway'.
 */
export async function startTraining(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Start Training' }).click();
  const question = page.getByRole('dialog', { name: /— train anyway\?$/ });
  if (
    await question.waitFor({ timeout: 1_000 }).then(
      () => true,
      () => false,
    )
  ) {
    await question.getByRole('button', { name: 'Train anyway' }).click();
  }
}
