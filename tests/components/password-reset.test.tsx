// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import { ResetPasswordForm } from '@/features/auth/components/password-reset';
import { localBackendOver, stubIdentity } from '../support/fake-backend';

function renderPage(refusal: ApiError) {
  const identity = { ...stubIdentity(), resetPassword: vi.fn(async () => Promise.reject(refusal)) };
  render(
    <AppProviders backend={localBackendOver(vi.fn(), { identity })}>
      <MemoryRouter initialEntries={['/reset-password?token=abc']}>
        <ResetPasswordForm />
      </MemoryRouter>
    </AppProviders>,
  );
  return identity;
}

async function setPassword() {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('New password'), 'quiet-harbour-lantern-42');
  await user.click(screen.getByRole('button', { name: 'Set new password' }));
}

describe("'Set a new password'", () => {
  afterEach(cleanup);

  it('names the link when the server refuses it, however it is refused, and never an e-mail field it does not have', async () => {
    for (const refusal of [
      new ApiError(400, '', 'Invalid token', 'INVALID_TOKEN'),
      new ApiError(400, '', 'token: too long', 'VALIDATION_ERROR'),
    ]) {
      const identity = renderPage(refusal);
      await setPassword();
      expect(await screen.findByText('This link is invalid, has expired or was already used. Ask for a new one.')).toBeInTheDocument();
      expect(screen.queryByText('Enter a valid email address.')).toBeNull();
      expect(identity.resetPassword).toHaveBeenCalledWith({ token: 'abc', newPassword: 'quiet-harbour-lantern-42' });
      cleanup();
    }
  });

  it("shows the server's password rule under the field", async () => {
    renderPage(new ApiError(400, '', 'Choose a password that is not your name or e-mail address.', 'WEAK_PASSWORD'));
    await setPassword();
    expect(await screen.findByLabelText('New password')).toHaveAccessibleDescription(
      expect.stringContaining('Choose a password that is not your name or e-mail address.'),
    );
  });
});
