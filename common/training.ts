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
  /** Where a running training is (issue 54 item 6); null before the trainer said anything, and once it ended. */
  progress: TrainingProgress | null;
}

export const TRAINING_STAGES = ['queued', 'preparing', 'training', 'saving'] as const;
export type TrainingStage = (typeof TRAINING_STAGES)[number];

/**
 * What the trainer last said about a running training (lora_trainings.progress): its stage, the queue position
 * while queued, the step while training, and the first step seen with its time, from which the step rate is
 * measured. Times are ISO strings.
 */
export interface TrainingProgress {
  stage: TrainingStage;
  /** Requests ahead of it in the trainer's queue (fal's queue_position). */
  queue_position?: number;
  step?: number;
  total_steps?: number;
  /** The first step count seen and when: the rate is (step - from.step) / (at - from.at). */
  rate_from?: { step: number; at: string };
  /** When this was observed. */
  at: string;
}

/** What the trainer reports at one look: the runner folds it into the stored progress (trainingProgressAfter). */
export interface TrainerReport {
  stage: TrainingStage;
  queuePosition?: number;
  step?: number;
  totalSteps?: number;
}

/** The stored progress after a new report at `now`: the rate's starting point is kept while the steps go on. */
export function trainingProgressAfter(previous: TrainingProgress | null, report: TrainerReport, now: Date): TrainingProgress {
  const at = now.toISOString();
  const next: TrainingProgress = { stage: report.stage, at };
  if (report.queuePosition !== undefined) next.queue_position = report.queuePosition;
  if (report.step !== undefined && report.totalSteps) {
    next.step = report.step;
    next.total_steps = report.totalSteps;
    const from = previous?.rate_from;
    next.rate_from = from && from.step <= report.step ? from : { step: report.step, at };
  } else if (previous?.step !== undefined && report.stage !== 'queued') {
    // A stage after training (saving) keeps the last step it reached.
    next.step = previous.step;
    next.total_steps = previous.total_steps;
  }
  return next;
}

/** The stage as the page words it: 'Queued, 2 ahead', 'Preparing photos', 'Training — step 420 of 1000', 'Saving the model'. */
export function trainingStageText(p: TrainingProgress): string {
  switch (p.stage) {
    case 'queued':
      return p.queue_position ? `Queued, ${p.queue_position} ahead` : 'Queued';
    case 'preparing':
      return 'Preparing photos';
    case 'training':
      return p.step !== undefined && p.total_steps ? `Training — step ${p.step} of ${p.total_steps}` : 'Training';
    case 'saving':
      return 'Saving the model';
  }
}

/**
 * The time left when the progress was observed, from the measured step rate: null until two step counts apart
 * in time were seen (no rate yet), and outside the training stage. The page counts it down on its own clock.
 */
export function trainingMsLeft(p: TrainingProgress): number | null {
  if (p.stage !== 'training' || p.step === undefined || !p.total_steps || !p.rate_from) return null;
  const steps = p.step - p.rate_from.step;
  const ms = Date.parse(p.at) - Date.parse(p.rate_from.at);
  if (steps <= 0 || ms <= 0) return null;
  return ((p.total_steps - p.step) * ms) / steps;
}

/**
 * Reads fal's queue status into a report: the queue position while IN_QUEUE; while IN_PROGRESS, the last step
 * count in its logs ('420/1000', as its progress bars print), else the stage its log lines name.
 */
export function falTrainingReport(status: { status: string; queue_position?: unknown; logs?: unknown }): TrainerReport | null {
  if (status.status === 'IN_QUEUE') {
    const position = typeof status.queue_position === 'number' && status.queue_position >= 0 ? status.queue_position : undefined;
    return { stage: 'queued', ...(position !== undefined ? { queuePosition: Math.floor(position) } : {}) };
  }
  if (status.status !== 'IN_PROGRESS') return null;
  const messages = Array.isArray(status.logs)
    ? status.logs.map((l: unknown) =>
        l && typeof l === 'object' && typeof (l as { message?: unknown }).message === 'string' ? (l as { message: string }).message : '',
      )
    : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (/sav|upload|export/i.test(m) && !/\d+\s*\/\s*\d+/.test(m)) return { stage: 'saving' };
    const count = m.match(/(\d+)\s*\/\s*(\d+)/);
    if (count && /step|it\/s|s\/it|train|%/i.test(m)) {
      const step = Number(count[1]);
      const total = Number(count[2]);
      if (total > 0 && step <= total)
        return step >= total ? { stage: 'saving', step, totalSteps: total } : { stage: 'training', step, totalSteps: total };
    }
  }
  return { stage: 'preparing' };
}
