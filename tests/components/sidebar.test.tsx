// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { Sidebar } from '@/app/shell/sidebar';
import { compactCredits } from '@/app/shell/nav-items';

function renderSidebar(credits: number, open: boolean) {
  return render(
    <MemoryRouter initialEntries={['/app/create-image']}>
      <Sidebar
        credits={credits}
        fullName="Jamie Rivera"
        email="jamie@example.com"
        imageUrl={null}
        open={open}
        animate={false}
        onSignOut={() => {}}
      />
    </MemoryRouter>,
  );
}

describe('the balance in the sidebar', () => {
  afterEach(cleanup);

  it('shows the balance compactly under the coin when closed, the full value in the tooltip and to screen readers', () => {
    renderSidebar(1500, false);
    const sidebar = screen.getByTestId('sidebar');
    const compact = within(sidebar).getByTestId('sidebar-credits-compact');
    expect(compact).toHaveTextContent('1.5k');
    expect(compact).toHaveClass('opacity-100');
    expect(compact).toHaveAttribute('aria-hidden', 'true');
    const link = within(sidebar).getByRole('link', { name: '1,500 Credits' });
    expect(link).toHaveAttribute('href', '/app/credits');
    expect(link).toHaveAttribute('title', '1,500 Credits');
    expect(link).toContainElement(compact);
  });

  it("keeps '{n} Credits' when open, without the compact number or the tooltip", () => {
    renderSidebar(4510, true);
    const sidebar = screen.getByTestId('sidebar');
    const link = within(sidebar).getByRole('link', { name: '4,510 Credits' });
    expect(within(link).getByText('4,510 Credits')).toHaveClass('opacity-100');
    expect(within(sidebar).getByTestId('sidebar-credits-compact')).toHaveClass('opacity-0');
    expect(link).not.toHaveAttribute('title');
  });

  it('never rounds a balance up and keeps it to five characters', () => {
    expect([0, 10, 999, 1000, 1500, 1999, 4510, 9999, 10_000, 123_456, 999_999, 1_250_000].map(compactCredits)).toEqual([
      '0',
      '10',
      '999',
      '1k',
      '1.5k',
      '1.99k',
      '4.51k',
      '9.99k',
      '10k',
      '123k',
      '999k',
      '1.25m',
    ]);
  });
});
