import { ACCOUNT_TEXTS } from '@common/account.ts';
import { PRODUCT_NAME } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { accountDataRepository as repo } from '../repositories/account-data.repository.ts';
import type { PageEnd } from '../repositories/keyset.ts';
import { trainingsRepository } from '../repositories/trainings.repository.ts';
import type { AccountErasureService, ErasureReport } from './account-erasure.service.ts';
import { currentReference } from './likeness.service.ts';
import type { SubscriptionCancellation } from './subscription-cancellation.ts';
import type { UserRow } from './users.service.ts';
import { safeFileName, zipStream, type ZipEntry } from './zip-stream.ts';

const PAGE = 500;

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The extension of a stored file's key ('generations/u/id.png' → 'png'), or `fallback`. */
const extensionOf = (key: string, fallback: string) => /\.([a-z0-9]{1,5})$/i.exec(key)?.[1]?.toLowerCase() ?? fallback;

/** One CSV field: quoted when needed, and never read as a formula by a spreadsheet. */
function csvField(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const EXPORT_README = (email: string | null, at: Date, images: number) =>
  [
    `${PRODUCT_NAME}: your data`,
    `Exported ${at.toISOString()} for ${email ?? 'your account'}.`,
    '',
    'What each file is:',
    '',
    'images/            every image in your gallery (My Generations), as the original file we keep.',
    '                   Named <date>_<generation id>.<jpeg|png>. Images you deleted are not included.',
    'uploads/           photos and training archives you uploaded that we still keep (they are deleted',
    '                   automatically some days after the upload).',
    'generations.json   one entry per image: its prompt and every parameter it was made with (size, seed,',
    '                   inference steps, guidance scale, character and its strength, favourite), the time',
    '                   it was made, its likeness to its character (0-100 and strong, weak or no face)',
    '                   and the file name under images/.',
    'characters.json    your characters (trainings): name, trigger word, gender, hair colour, status,',
    '                   when each was trained, and its reference face: the list of numbers the likeness',
    '                   check compares each image with (the mean of the face measurements of your',
    "                   training photos; not a photo), and the photo check's verdict on each training",
    '                   photo when it was submitted (photo_checks). Deleted characters are not included; their',
    '                   models, training photos and reference faces were removed when you deleted them.',
    'credits.csv        your credit history, one line per change: time, kind (grant, debit, refund,',
    '                   adjustment), amount, balance after it and the reason.',
    'README.txt         this file.',
    '',
    images === 0 ? 'Your gallery has no images yet, so images/ is empty.' : `images/ holds ${images} image${images === 1 ? '' : 's'}.`,
    '',
  ].join('\r\n');

export type AccountDataService = ReturnType<typeof createAccountDataService>;

/**
 * A person's own control over their account: deleting it (local and scale-out modes; in Clerk
 * mode Clerk deletes it and its user.deleted webhook erases) and downloading everything in it.
 */
export function createAccountDataService(deps: {
  db: Db;
  storage: StorageProvider;
  subscriptions: SubscriptionCancellation;
  erasure: AccountErasureService;
  logger: Logger;
}) {
  const { db, storage, logger } = deps;

  /** The person's images as archive entries, read one at a time as the archive is written. */
  async function* imageEntries(userId: string, count: { images: number }): AsyncGenerator<ZipEntry> {
    let from: PageEnd | null = null;
    for (;;) {
      const page = await repo.generationsPage(db, userId, from, PAGE);
      for (const { generation: g } of page) {
        const key = keyFromMediaUrl(g.imageUrl);
        if (!key) continue;
        count.images++;
        yield {
          name: `images/${imageFileName(g.createdAt, g.id, extensionOf(key, g.outputFormat))}`,
          modified: g.createdAt,
          content: async () => (await storage.get(key))?.body ?? null,
        };
      }
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      from = { at: last.at, id: last.generation.id };
    }
  }

  async function* generationsJson(userId: string): AsyncGenerator<Uint8Array> {
    const encoder = new TextEncoder();
    yield encoder.encode('[');
    let from: PageEnd | null = null;
    let first = true;
    for (;;) {
      const page = await repo.generationsPage(db, userId, from, PAGE);
      for (const { generation: g, characterName } of page) {
        const key = keyFromMediaUrl(g.imageUrl);
        const item = {
          id: g.id,
          file: key ? `images/${imageFileName(g.createdAt, g.id, extensionOf(key, g.outputFormat))}` : null,
          created_at: g.createdAt.toISOString(),
          prompt: g.prompt,
          style: g.style,
          width: g.width,
          height: g.height,
          output_format: g.outputFormat,
          seed: g.seed,
          num_inference_steps: g.numInferenceSteps,
          guidance_scale: g.guidanceScale,
          character: g.loraId ? { id: g.loraId, name: characterName, strength: g.loraScale } : null,
          is_favorite: g.isFavorite,
          likeness: g.likenessVerdict ? g.likeness : null,
          likeness_verdict: g.likenessVerdict,
        };
        yield encoder.encode(`${first ? '\n' : ',\n'}  ${JSON.stringify(item)}`);
        first = false;
      }
      if (page.length < PAGE) break;
      const last = page[page.length - 1];
      from = { at: last.at, id: last.generation.id };
    }
    yield encoder.encode(first ? ']\n' : '\n]\n');
  }

  async function* creditsCsv(userId: string): AsyncGenerator<Uint8Array> {
    const encoder = new TextEncoder();
    yield encoder.encode('created_at,kind,amount,balance_after,reason\r\n');
    let from: PageEnd | null = null;
    for (;;) {
      const page = await repo.ledgerPage(db, userId, from, PAGE);
      const lines = page.map(
        (r) => [r.createdAt.toISOString(), r.kind, r.delta, r.balanceAfter, r.reason].map(csvField).join(',') + '\r\n',
      );
      if (lines.length) yield encoder.encode(lines.join(''));
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      from = { at: last.at, id: last.id };
    }
  }

  return {
    /**
     * 'Delete account' (local and scale-out modes): the typed e-mail must be the account's, then `ctx.confirm`
     * checks the person (the current password: issue 47), so a mistyped address costs no password try;
     * subscriptions are cancelled with the payment provider next (a refusal erases nothing), then the erasure
     * service runs (docs/decisions/005-account-erasure.md), which also deletes the built-in login and its sessions.
     */
    async deleteOwn(
      user: UserRow,
      typedEmail: string,
      ctx: { webhookUrl: string; confirm: () => Promise<void> },
    ): Promise<ErasureReport & { subscriptionsCancelled: number }> {
      // 422: the request is well formed, but it does not confirm this account.
      if (!user.email || !sameEmail(typedEmail, user.email)) throw new AppError(422, 'email_mismatch', ACCOUNT_TEXTS.emailMismatch);
      await ctx.confirm();
      const subscriptionsCancelled = await deps.subscriptions.cancelAll(user, ctx.webhookUrl);
      const report = await deps.erasure.erase(user.id);
      logger.info({ userId: user.id, subscriptionsCancelled }, 'a person deleted their account');
      return { ...report, subscriptionsCancelled };
    },

    /**
     * 'Download my data': a ZIP written as it is sent (see zip-stream.ts). Images come first, then the
     * JSON and CSV files (each streamed page by page), then README.txt, which counts the images.
     */
    exportArchive(user: UserRow, now = new Date()): ReadableStream<Uint8Array> {
      const count = { images: 0 };
      const userId = user.id;
      async function* entries(): AsyncGenerator<ZipEntry> {
        yield* imageEntries(userId, count);
        for (const upload of await repo.keptUploads(db, userId)) {
          yield {
            name: `uploads/${upload.createdAt.toISOString().slice(0, 10)}_${upload.id}.${extensionOf(upload.storageKey, 'bin')}`,
            modified: upload.createdAt,
            content: async () => (await storage.get(upload.storageKey))?.body ?? null,
          };
        }
        yield { name: 'generations.json', compress: true, modified: now, content: async () => generationsJson(userId) };
        const characters = (await trainingsRepository.listForUser(db, userId)).map((t) => ({
          id: t.id,
          name: t.characterName,
          trigger_word: t.triggerWord,
          gender: t.gender,
          hair_color: t.hairColor,
          status: t.status,
          created_at: t.createdAt.toISOString(),
          error: t.error,
          // Today's references without the version they are kept with; one of an older embedding as it is kept.
          reference_face: t.referenceFace && (currentReference(t.referenceFace) ?? t.referenceFace),
          photo_checks: t.photoChecks,
        }));
        yield { name: 'characters.json', compress: true, modified: now, content: `${JSON.stringify(characters, null, 2)}\n` };
        yield { name: 'credits.csv', compress: true, modified: now, content: async () => creditsCsv(userId) };
        yield { name: 'README.txt', compress: true, modified: now, content: EXPORT_README(user.email, now, count.images) };
      }
      return zipStream(entries(), (err) => logger.error({ err, userId }, 'a data export was cut short'));
    },

    exportFileName: (now = new Date()) => `${safeFileName(PRODUCT_NAME)}-my-data-${now.toISOString().slice(0, 10)}.zip`,
  };
}

/** 'images/<yyyy-mm-dd>_<id>.<ext>': sorted by date in any file manager, unique by id. */
export const imageFileName = (createdAt: Date, id: string, extension: string) =>
  `${createdAt.toISOString().slice(0, 10)}_${id}.${extension}`;
