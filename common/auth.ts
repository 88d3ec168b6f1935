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
