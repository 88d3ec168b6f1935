/** The built-in sign-up and sign-in forms' fields, under the shared string rule and length limits. */
import { z } from 'zod';
import { storableText, TEXT_LIMITS } from './text.ts';

export const signUpFieldsSchema = z.object({
  name: storableText(TEXT_LIMITS.personName).trim().min(1, 'is required'),
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
  // Length and strength are the password rule's own (common/password.ts), with its own messages.
  password: storableText(TEXT_LIMITS.passwordMax + 1),
});

export const signInFieldsSchema = z.object({
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
  password: storableText(TEXT_LIMITS.passwordMax).min(1, 'is required'),
});

/** 'Forgot password?' and 'Send again': the address the mail goes to. */
export const mailRequestSchema = z.object({
  email: storableText(TEXT_LIMITS.email).trim().min(1, 'is required'),
});

/** 'Set a new password': the password under sign-up's rule (common/password.ts) and the link's token. */
export const resetPasswordSchema = z.object({
  newPassword: storableText(TEXT_LIMITS.passwordMax + 1),
  token: storableText(200).optional(),
});

/** The answer to a reset request, the same whether or not the address has an account. */
export const RESET_REQUESTED_TEXT = 'If an account exists for that address, we sent a link';
