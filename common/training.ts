import { z } from 'zod';
import { LIMITS } from './product.ts';
import { storableText, TEXT_LIMITS } from './text.ts';

/** Character training: the form's options and rules (product §3, §5) and the API's shapes, shared by SPA and server. */

export const GENDERS = ['male', 'female', 'other'] as const;
export const HAIR_COLORS = ['black', 'brown', 'blonde', 'red', 'gray', 'white', 'other'] as const;
export type Gender = (typeof GENDERS)[number];
export type HairColor = (typeof HAIR_COLORS)[number];

export const TRAINING_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;
export type TrainingStatus = (typeof TRAINING_STATUSES)[number];

/** The trigger-word input keeps only lowercase a–z (product §5). */
export function sanitizeTriggerWord(value: string): string {
  return value.toLowerCase().replace(/[^a-z]/g, '');
}

/** The default trigger word: the first 5 letters of the e-mail's local part, lowercased and stripped to a–z. */
export function defaultTriggerWord(email: string | null | undefined): string {
  if (!email) return '';
  const local = email.split('@')[0] ?? '';
  return sanitizeTriggerWord(local.slice(0, 5));
}

export const TRAINING_MESSAGES = {
  tooFewImages: 'Please upload at least 4 images for better results',
  nameRequired: 'Please enter a character name',
} as const;

/** POST /api/image/submit-lora-training: the spec's payload plus the form's name, gender and hair colour. */
export const trainingSubmissionSchema = z.object({
  images_data_url: storableText(TEXT_LIMITS.url).trim().min(1, 'is required'),
  trigger_word: z
    .string({ error: 'must be text' })
    .max(TEXT_LIMITS.triggerWord, `must be at most ${TEXT_LIMITS.triggerWord} characters`)
    .regex(/^[a-z]*$/, 'may contain only the letters a to z')
    .optional()
    .transform((v) => (v ? v : undefined)),
  create_masks: z.literal(true).default(true),
  steps: z.literal(LIMITS.trainingSteps).default(LIMITS.trainingSteps),
  is_style: z.literal(false).default(false),
  character_name: storableText(TEXT_LIMITS.characterName).trim().min(1, TRAINING_MESSAGES.nameRequired),
  /** Teams (issue 49): a team character, trained in that team and paid from its balance. */
  team_id: z.string({ error: 'must be a team id' }).uuid('must be a team id').optional(),
  gender: z.enum(GENDERS).default('other'),
  hair_color: z.enum(HAIR_COLORS).default('other'),
});
export type TrainingSubmission = z.input<typeof trainingSubmissionSchema>;

/** PATCH /api/trainings/:id: 'Rename' in Previous Trainings (the same rule as the training form's name). */
export const characterRenameSchema = z.object(
  { character_name: storableText(TEXT_LIMITS.characterName).trim().min(1, TRAINING_MESSAGES.nameRequired) },
  { error: 'must be {character_name}' },
);
export type CharacterRename = z.input<typeof characterRenameSchema>;

/** What 'Delete' in Previous Trainings asks before it deletes a character (word for word). */
export const deleteCharacterQuestion = (name: string) =>
  `Delete ${name}? Its model and training photos are removed for good. Images you made with it stay in your gallery.`;

/**
 * How long after 'Delete' a character can be brought back with Undo (its files are kept until then, then
 * purged). The toast offers Undo for UNDO_TOAST_MS (common/library.ts), well inside this.
 */
export const CHARACTER_UNDO_SECONDS = 10;
/** The toast after a character's delete (with 'Undo', unless it was still training: product §4). */
export const CHARACTER_DELETED = 'Character deleted';
/** Undo came too late: the window has passed or the character's files are already gone. */
export const CHARACTER_RESTORE_REFUSED = 'The character could not be restored: Undo works only for a few seconds after deleting.';
/** A training cancelled (and refunded) by its delete cannot come back. */
export const CHARACTER_CANCELLED_NOT_RESTORABLE =
  'The character could not be restored: its training was cancelled and refunded when it was deleted.';
/** The Undo failed for any other reason (no answer from the server). */
export const CHARACTER_RESTORE_FAILED = 'The character could not be restored.';

export interface TrainingSubmitResponse {
  request_id: string;
}

/** A row of GET /api/trainings (product §7: the fields the training page reads). */
export interface TrainingView {
  id: string;
  character_name: string;
  trigger_word: string | null;
  gender: string;
  hair_color: string;
  status: TrainingStatus;
  created_at: string;
  lora_file_url: string | null;
  request_id: string | null;
  result: unknown;
  error: string | null;
}
