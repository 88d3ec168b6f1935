// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import NotFoundPage from '@/pages/not-found-page';

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <NotFoundPage />
    </MemoryRouter>,
  );
}

describe('the page-not-found screen', () => {
  afterEach(cleanup);

  it('leads a wrong link inside the app back to Create Image', () => {
    renderAt('/app/no-such-page');
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Create Image' })).toHaveAttribute('href', '/app/create-image');
  });

  it('leads a wrong public link back to the landing page', () => {
    renderAt('/no-such-page');
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });
});
