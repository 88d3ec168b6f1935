/**
 * "Your data, your control": deleting one's account and downloading one's data. Texts and rules
 * the profile page and the server share.
 */
import { z } from 'zod';
import { storableText, TEXT_LIMITS } from './text.ts';

/** POST /api/me/delete: the person types their e-mail address and their current password to confirm. */
export const deleteAccountSchema = z.object(
  {
    email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
    // Only bounded here, as change-password's current one: a wrong one is a wrong password, never a 500.
    password: storableText(TEXT_LIMITS.passwordMax).min(1, 'is required'),
  },
  { error: 'must be {email, password}' },
);
export type DeleteAccountBody = z.input<typeof deleteAccountSchema>;

export const ACCOUNT_TEXTS = {
  deleteTitle: 'Delete account',
  deleteWarning:
    'This deletes your characters, their training photos, every image you made and your remaining credits, for good. An active subscription is cancelled first.',
  deletePrompt: 'Type your e-mail address to confirm',
  deletePasswordPrompt: 'Your password',
  wrongPassword: 'Your password is incorrect. Nothing was deleted.',
  emailMismatch: 'The e-mail address does not match this account. Nothing was deleted.',
  /** The sign-in page after the account was deleted (`/sign-in?deleted=1`). */
  deleted: 'Your account was deleted. Everything in it has been erased.',
  subscriptionNotCancelled:
    'Your subscription could not be cancelled with the payment provider, so nothing was deleted. Please try again in a few minutes, or cancel it under Manage Subscription first.',
  clerkMode: 'Delete your account from your account settings (Manage account → Delete account).',
  downloadTitle: 'Download my data',
  downloadHelp: 'A ZIP with every image you made, their prompts and settings, your characters and your credit history.',
} as const;

/** At most one data export per account in this many minutes. */
export const EXPORT_INTERVAL_MINUTES = 10;
export const EXPORT_RATE_LIMITED = `You can download your data once every ${EXPORT_INTERVAL_MINUTES} minutes. Please try again later.`;
