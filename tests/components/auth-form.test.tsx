// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '@/app/providers';
import { AuthForm } from '@/features/auth/auth-form';
import { localBackendOver, stubIdentity } from '../support/fake-backend';

function renderForm(mode: 'sign-in' | 'sign-up') {
  const identity = { ...stubIdentity(), signIn: vi.fn(async () => {}), signUp: vi.fn(async () => {}) };
  render(
    <AppProviders backend={localBackendOver(vi.fn(), { identity })}>
      <MemoryRouter initialEntries={[`/${mode}`]}>
        <AuthForm mode={mode} />
      </MemoryRouter>
    </AppProviders>,
  );
  return identity;
}

describe('the built-in sign-up and sign-in forms', () => {
  afterEach(cleanup);

  it('say what is missing under each field, in the page, and send nothing', async () => {
    const identity = renderForm('sign-up');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign up' }));
    expect(screen.getByLabelText('Full name')).toHaveAccessibleDescription('Enter your full name.');
    expect(screen.getByLabelText('Email address')).toHaveAccessibleDescription('Enter your email address.');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Enter your password.');
    expect(screen.getByLabelText('Full name')).toHaveFocus();
    expect(identity.signUp).not.toHaveBeenCalled();

    // A name of spaces is no name; a wrong address and a short password are named; a fixed field's message goes.
    await user.type(screen.getByLabelText('Full name'), '   ');
    await user.type(screen.getByLabelText('Email address'), 'pat.example.com');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(screen.getByLabelText('Full name')).toHaveAccessibleDescription('Enter your full name.');
    expect(screen.getByLabelText('Email address')).toHaveAccessibleDescription('Enter a valid email address.');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Use at least 8 characters for your password.');
    await user.type(screen.getByLabelText('Full name'), 'Pat Lee');
    expect(screen.getByLabelText('Full name')).not.toHaveAccessibleDescription('Enter your full name.');
    expect(identity.signUp).not.toHaveBeenCalled();
  });

  it('sends a complete form', async () => {
    const identity = renderForm('sign-in');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getByLabelText('Email address')).toHaveFocus();
    await user.type(screen.getByLabelText('Email address'), 'pat@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(identity.signIn).toHaveBeenCalledWith({ email: 'pat@example.com', password: 'correct horse battery' });
  });
});
