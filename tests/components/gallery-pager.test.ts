import { describe, expect, it } from 'vitest';
import { pageWindow } from '@/features/gallery/lib/page-window';
import { cutPrompt, labelOf } from '@/features/gallery/lib/format';

describe('gallery pager window (product §4)', () => {
  it('shows every page when there are 5 or fewer', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(3, 5)).toEqual([1, 2, 3, 4, 5]);
  });
  it('shows a window with ellipses beyond 5 pages', () => {
    expect(pageWindow(1, 9)).toEqual([1, 2, 3, 4, 'gap', 9]);
    expect(pageWindow(3, 9)).toEqual([1, 2, 3, 4, 'gap', 9]);
    expect(pageWindow(5, 9)).toEqual([1, 'gap', 4, 5, 6, 'gap', 9]);
    expect(pageWindow(7, 9)).toEqual([1, 'gap', 6, 7, 8, 9]);
    expect(pageWindow(9, 9)).toEqual([1, 'gap', 6, 7, 8, 9]);
    expect(pageWindow(4, 6)).toEqual([1, 'gap', 3, 4, 5, 6]);
  });
});

describe('explore card text', () => {
  it('cuts the prompt at 150 characters', () => {
    const long = 'x'.repeat(151);
    expect(cutPrompt(long)).toBe(`${'x'.repeat(150)}…`);
    expect(cutPrompt('x'.repeat(150))).toBe('x'.repeat(150));
  });
  it('labels vocabulary words', () => {
    expect(labelOf('east-asian')).toBe('East Asian');
    expect(labelOf('blonde')).toBe('Blonde');
  });
});
