import { describe, expect, it } from 'vitest';
import { defaultTriggerWord, sanitizeTriggerWord, trainingSubmissionSchema } from './training.ts';

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
