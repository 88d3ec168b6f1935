// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '@/app/providers';
import { AuthForm } from '@/features/auth/components/auth-form';
import { ApiError } from '@/backend/api-error';
import { localBackendOver, stubIdentity } from '../support/fake-backend';

function renderForm(mode: 'sign-in' | 'sign-up', opts: { mailOutboxPage?: boolean; signIn?: () => Promise<void> } = {}) {
  const identity = {
    ...stubIdentity(),
    loadUser: vi.fn(async () => null),
    signIn: vi.fn(opts.signIn ?? (async () => {})),
    signUp: vi.fn(async () => {}),
    sendVerificationEmail: vi.fn(async () => {}),
  };
  const request = vi.fn(async (path: string) => {
    if (path === '/api/public-config')
      return { supportEmail: 'help@example.org', uploadRetentionDays: 30, mailOutboxPage: !!opts.mailOutboxPage };
    throw new Error(`unexpected request ${path}`);
  }) as never;
  render(
    <AppProviders backend={localBackendOver(request, { identity })}>
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

  it("answers a sign-up with 'Check your e-mail to continue', signs nobody in, and can send the link again", async () => {
    const identity = renderForm('sign-up', { mailOutboxPage: true });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Full name'), 'Pat Lee');
    await user.type(screen.getByLabelText('Email address'), ' pat@example.com ');
    await user.type(screen.getByLabelText('Password'), 'amber-lighthouse-violin-58');
    const sessionReads = identity.loadUser.mock.calls.length;
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('heading', { name: 'Check your e-mail to continue' })).toBeInTheDocument();
    expect(identity.signUp).toHaveBeenCalledWith({ name: 'Pat Lee', email: 'pat@example.com', password: 'amber-lighthouse-violin-58' });
    expect(screen.getByText('pat@example.com')).toBeInTheDocument();
    // Nobody was signed in: the session was not read again.
    expect(identity.loadUser.mock.calls.length).toBe(sessionReads);
    // Without SMTP, on the machine itself: where the message is.
    expect(await screen.findByRole('link', { name: 'local outbox' })).toHaveAttribute('href', '/sandbox/mail');
    await user.click(screen.getByRole('button', { name: 'send it again' }));
    expect(identity.sendVerificationEmail).toHaveBeenCalledWith('pat@example.com');
    expect(await screen.findByText(/We sent it again/)).toBeInTheDocument();
  });

  it('does not point at a local outbox the server does not show', async () => {
    renderForm('sign-up', { mailOutboxPage: false });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Full name'), 'Pat Lee');
    await user.type(screen.getByLabelText('Email address'), 'pat@example.com');
    await user.type(screen.getByLabelText('Password'), 'amber-lighthouse-violin-58');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('heading', { name: 'Check your e-mail to continue' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'local outbox' })).toBeNull();
  });

  it('after a refused sign-in offers to send the confirmation link again', async () => {
    const identity = renderForm('sign-in', {
      signIn: async () => {
        throw new ApiError(401, '{}', 'Invalid email or password', 'INVALID_EMAIL_OR_PASSWORD');
      },
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email address'), 'pat@example.com');
    await user.type(screen.getByLabelText('Password'), 'amber-lighthouse-violin-58');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Incorrect email or password. Please try again.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send the link again' }));
    expect(await screen.findByRole('heading', { name: 'Check your e-mail to continue' })).toBeInTheDocument();
    expect(identity.sendVerificationEmail).toHaveBeenCalledExactlyOnceWith('pat@example.com');
  });
});
