/** The built-in sign-up and sign-in forms' fields, under the shared string rule and length limits. */
import { z } from 'zod';
import { storableText, TEXT_LIMITS } from './text.ts';

export const signUpFieldsSchema = z.object({
  name: storableText(TEXT_LIMITS.personName).trim().min(1, 'is required'),
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
  // Length and strength are the password rule's own (common/password.ts), with its own messages.
  password: storableText(TEXT_LIMITS.passwordMax + 1),
  // The auth library would store it as the avatar's address, unchecked; the product sets none at sign-up.
  image: z.undefined({ error: 'is not accepted' }).optional(),
});

export const signInFieldsSchema = z.object({
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
  password: storableText(TEXT_LIMITS.passwordMax).min(1, 'is required'),
});

/**
 * 'Change password' (profile) and any other form that sets a new password for a signed-in or returning
 * person (the e-mail issue's password reset): the new password follows the sign-up rule, passwordProblem in
 * common/password.ts, checked by the server after this schema. The current password is only bounded here: a
 * wrong one is a wrong password (400), never a 500, whatever it holds.
 */
export const newPasswordField = storableText(TEXT_LIMITS.passwordMax + 1).min(1, 'is required');

export const changePasswordFieldsSchema = z.object({
  currentPassword: storableText(TEXT_LIMITS.passwordMax).min(1, 'is required'),
  newPassword: newPasswordField,
});
export type ChangePasswordFields = z.infer<typeof changePasswordFieldsSchema>;

export const CHANGE_PASSWORD_MESSAGES = {
  wrongCurrent: 'Your current password is incorrect.',
  mismatch: 'The new passwords do not match.',
  sameAsCurrent: 'Choose a new password that is different from your current one.',
  done: 'Your password has been changed. You have been signed out everywhere else.',
} as const;

/** A 429's wait in words: 'in 14 minutes', 'in 1 minute', 'in 30 seconds'. */
export function tryAgainIn(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return `in ${s} second${s === 1 ? '' : 's'}`;
  const m = Math.ceil(s / 60);
  return `in ${m} minute${m === 1 ? '' : 's'}`;
}
/** 'Forgot password?' and 'Send again': the address the mail goes to. */
export const mailRequestSchema = z.object({
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
});

/** 'Set a new password': the password under sign-up's rule (common/password.ts) and the link's token. */
export const resetPasswordSchema = z.object({
  newPassword: storableText(TEXT_LIMITS.passwordMax + 1),
  token: storableText(200).optional(),
});

/** The reset link works once, for one hour; the confirmation link for a day (people open it later). */
export const RESET_TOKEN_SECONDS = 60 * 60;
export const VERIFY_TOKEN_SECONDS = 24 * 60 * 60;

/** The answer to a sign-up, the same whether the address is new or has an account already. */
export const SIGN_UP_SENT_TEXT = 'Check your e-mail to continue';

/** The answer to a reset request, the same whether or not the address has an account. */
export const RESET_REQUESTED_TEXT = 'If an account exists for that address, we sent a link';
