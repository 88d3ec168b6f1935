// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PACK_PROMPTS } from '@common/photo-shoots';
import { CREDIT_COSTS } from '@common/product';
import { PhotoShootsSection } from '@/features/site/components/photo-shoots-section';

afterEach(cleanup);

describe('the landing page’s photo shoots section', () => {
  it('says what a pack is (as the catalogue sizes them), that it is followed live, and the ZIP', () => {
    render(<PhotoShootsSection />);
    const section = screen.getByRole('heading', { level: 2, name: 'A whole photo shoot in one click' }).closest('section')!;
    expect(section).toHaveAttribute('id', 'photo-shoots');
    const points = within(section)
      .getAllByRole('heading', { level: 3 })
      .map((h) => h.textContent);
    expect(points).toEqual(["A photographer's briefs, in packs", 'Followed live', 'Downloaded as one ZIP']);
    // The landing keeps the catalogue's schemas out of its bundle, so its copy of the pack sizes is checked here.
    expect(section).toHaveTextContent(`each pack holds ${PACK_PROMPTS.min}–${PACK_PROMPTS.max} briefs`);
    expect(section).toHaveTextContent(`Each photo uses ${CREDIT_COSTS.generation} credits, and a photo that fails is refunded.`);
    expect(within(section).getAllByRole('img')).toHaveLength(4);
    expect(section).toHaveTextContent('4 of 8 ready');
  });
});
