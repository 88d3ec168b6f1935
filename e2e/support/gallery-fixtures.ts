import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { generations } from '../../server/db/schema.ts';
import { mediaUrl } from '../../server/providers/storage/index.ts';
import type { Runtime } from '../../server/runtime.ts';

/**
 * Inserts `count` ACTIVE generations for a user, each with a small stored image of its own colour, one
 * second apart (the last newest); prompts are 'Gallery image <n>' numbered from 1 (oldest). Paging tests
 * need more generations than the built-in generator makes in a test's time.
 */
export async function insertGenerations(rt: Runtime, email: string, count: number): Promise<string[]> {
  const user = await rt.users.findByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  const start = Date.now() - count * 1000;
  const rows = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const hue = Math.round((i * 137.5) % 360);
    const image = await sharp({ create: { width: 320, height: 320, channels: 3, background: `hsl(${hue}, 55%, 55%)` } })
      .jpeg({ quality: 80 })
      .toBuffer();
    const key = `generations/${user.id}/${id}.jpeg`;
    await rt.storage.put(key, image, 'image/jpeg');
    rows.push({
      id,
      userId: user.id,
      prompt: `Gallery image ${i + 1}: a portrait in soft window light`,
      width: 1024,
      height: 1024,
      outputFormat: 'jpeg',
      imageUrl: mediaUrl(key),
      seed: String(1000 + i),
      numInferenceSteps: 30,
      guidanceScale: 4.5,
      createdAt: new Date(start + i * 1000),
    });
  }
  await rt.db.insert(generations).values(rows);
  return rows.map((r) => r.id);
}
