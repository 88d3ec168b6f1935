import { describe, expect, it } from 'vitest';
import { duplicateOf, isSamePhoto, photoBadge, photoSummary, trainingPolicyRefusal } from './photo-check.ts';

describe('training photo verdicts (issue 13)', () => {
  it('badges the first problem in the fixed order, or Good', () => {
    expect(photoBadge({ problems: [] })).toBe('Good');
    expect(photoBadge({ problems: ['blurry'] })).toBe('Blurry');
    expect(photoBadge({ problems: ['blurry'] }, 2)).toBe('Same as photo 2');
    expect(photoBadge({ problems: ['several-people'] }, 2)).toBe('More than one person');
    expect(photoBadge({ problems: ['too-small'] })).toBe('Too small (at least 512 px)');
    expect(photoBadge({ problems: ['unreadable'] })).toBe("Can't be read");
  });

  it('finds the earlier photo a photo repeats, within a few bits', () => {
    expect(isSamePhoto('ffff0000ffff0000', 'ffff0000ffff003f')).toBe(true); // 6 bits apart
    expect(isSamePhoto('ffff0000ffff0000', 'ffff0000ffff007f')).toBe(false); // 7 bits apart
    expect(isSamePhoto(null, null)).toBe(false);
    expect(duplicateOf(['ffff0000ffff0000', null, '0f0f0f0f0f0f0f0f', 'ffff0000ffff0001', '0f0f0f0f0f0f0f0f'])).toEqual([null, null, null, 1, 3]);
  });

  it('summarises the photos in words', () => {
    expect(photoSummary({ total: 12, good: 10, problems: 2, pending: 0 })).toBe('12 photos: 10 good, 2 with problems');
    expect(photoSummary({ total: 5, good: 3, problems: 1, pending: 1 })).toBe('5 photos: 3 good, 1 with a problem, 1 being checked');
    expect(photoSummary({ total: 1, good: 1, problems: 0, pending: 0 })).toBe('1 photo: 1 good');
  });

  it('refuses NSFW photos by number first, then too few photos of one person', () => {
    const good = { problems: [], faces: 1 };
    const nsfw = { problems: ['not-allowed' as const], faces: 1 };
    const group = { problems: ['several-people' as const], faces: 3 };
    expect(trainingPolicyRefusal([good, good, good, good])).toBeNull();
    expect(trainingPolicyRefusal([good, good, nsfw, good, good])).toBe('Photo 3 is not allowed: NSFW content is prohibited. Remove it to continue.');
    expect(trainingPolicyRefusal([nsfw, good, nsfw, good, nsfw], (i) => `${i + 1} (p${i + 1}.jpg)`)).toBe(
      'Photos 1 (p1.jpg), 3 (p3.jpg) and 5 (p5.jpg) are not allowed: NSFW content is prohibited. Remove them to continue.',
    );
    expect(trainingPolicyRefusal([good, group, good, good, { problems: ['no-face' as const], faces: 0 }])).toBe(
      'At least 4 photos must show exactly one face; only 3 do. Add photos of the person alone.',
    );
    expect(trainingPolicyRefusal([group, group, group, group])).toBe('At least 4 photos must show exactly one face; none does. Add photos of the person alone.');
  });
});
