import { describe, expect, it } from 'vitest';
import {
  defaultTriggerWord,
  falTrainingReport,
  sanitizeTriggerWord,
  trainingMsLeft,
  trainingProgressAfter,
  trainingStageText,
  trainingSubmissionSchema,
} from './training.ts';

describe('training form rules (product §5)', () => {
  it('keeps only lowercase a–z in the trigger word', () => {
    expect(sanitizeTriggerWord('Dana 9P!é')).toBe('danap');
    expect(sanitizeTriggerWord('123')).toBe('');
  });

  it('defaults the trigger word to the first 5 characters of the e-mail local part, stripped to a–z', () => {
    expect(defaultTriggerWord('Dana.Park@example.com')).toBe('dana');
    expect(defaultTriggerWord('DanaPark@example.com')).toBe('danap');
    expect(defaultTriggerWord('e2e-1abc@example.com')).toBe('ee');
    expect(defaultTriggerWord('jo@example.com')).toBe('jo');
    expect(defaultTriggerWord(null)).toBe('');
  });

  it('fills the fixed payload fields and the option defaults, and omits an empty trigger word', () => {
    const parsed = trainingSubmissionSchema.parse({
      images_data_url: '/media/uploads/u/a.zip',
      trigger_word: '',
      character_name: ' Dana ',
    });
    expect(parsed).toEqual({
      images_data_url: '/media/uploads/u/a.zip',
      trigger_word: undefined,
      create_masks: true,
      steps: 1000,
      is_style: false,
      character_name: 'Dana',
      gender: 'other',
      hair_color: 'other',
    });
    expect(trainingSubmissionSchema.safeParse({ images_data_url: 'x', character_name: 'D', steps: 500 }).success).toBe(false);
    expect(trainingSubmissionSchema.safeParse({ images_data_url: 'x', character_name: 'D', hair_color: 'purple' }).success).toBe(false);
  });
});

describe('training progress (issue 54 item 6)', () => {
  it("reads fal's queue position, the step counts of its logs and the stages its log lines name", () => {
    expect(falTrainingReport({ status: 'IN_QUEUE', queue_position: 3 })).toEqual({ stage: 'queued', queuePosition: 3 });
    expect(falTrainingReport({ status: 'IN_QUEUE' })).toEqual({ stage: 'queued' });
    expect(falTrainingReport({ status: 'IN_PROGRESS', logs: null })).toEqual({ stage: 'preparing' });
    const log = (message: string) => ({ message, level: 'INFO', source: 'USER', timestamp: '' });
    expect(
      falTrainingReport({
        status: 'IN_PROGRESS',
        logs: [log('Preprocessing'), log('Training:  42%|████ | 420/1000 [00:30<00:41, 14.0it/s]')],
      }),
    ).toEqual({ stage: 'training', step: 420, totalSteps: 1000 });
    expect(falTrainingReport({ status: 'IN_PROGRESS', logs: [log('step 420/1000'), log('Saving LoRA weights')] })).toEqual({
      stage: 'saving',
    });
    // A count that is not a step (photos found) does not read as one.
    expect(falTrainingReport({ status: 'IN_PROGRESS', logs: [log('Found faces in 4/4 images')] })).toEqual({ stage: 'preparing' });
    expect(falTrainingReport({ status: 'COMPLETED' })).toBeNull();
  });

  it('keeps where the step rate is measured from while the steps go on, and says the stage as the page words it', () => {
    const t0 = new Date('2026-11-21T10:00:00.000Z');
    const t1 = new Date('2026-11-21T10:01:00.000Z');
    const first = trainingProgressAfter(
      { stage: 'queued', queue_position: 1, at: t0.toISOString() },
      { stage: 'training', step: 100, totalSteps: 1000 },
      t0,
    );
    expect(first.rate_from).toEqual({ step: 100, at: t0.toISOString() });
    expect(trainingMsLeft(first)).toBeNull();
    const next = trainingProgressAfter(first, { stage: 'training', step: 400, totalSteps: 1000 }, t1);
    expect(next.rate_from).toEqual(first.rate_from);
    // 300 steps a minute: 600 left take two minutes.
    expect(trainingMsLeft(next)).toBe(120_000);
    expect(trainingStageText(next)).toBe('Training — step 400 of 1000');
    const saving = trainingProgressAfter(next, { stage: 'saving' }, t1);
    expect(saving).toMatchObject({ stage: 'saving', step: 400, total_steps: 1000 });
    expect(trainingMsLeft(saving)).toBeNull();
    expect(trainingStageText(saving)).toBe('Saving the model');
    expect(trainingStageText({ stage: 'queued', queue_position: 2, at: '' })).toBe('Queued, 2 ahead');
    expect(trainingStageText({ stage: 'queued', queue_position: 0, at: '' })).toBe('Queued');
    expect(trainingStageText({ stage: 'preparing', at: '' })).toBe('Preparing photos');
  });
});
