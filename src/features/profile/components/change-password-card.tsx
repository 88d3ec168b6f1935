import { useState, type FormEvent } from 'react';
import { KeyRound } from 'lucide-react';
import { CHANGE_PASSWORD_MESSAGES } from '@common/auth';
import { TEXT_LIMITS } from '@common/text';
import { ApiError } from '@/backend/api-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';

/** The sign-up form's password rule (zxcvbn's dictionaries, ~400 KB): loaded when the form is first used. */
const loadPasswordRule = () => import('@common/password');

type Field = 'current' | 'new' | 'confirm';

/**
 * 'Change password' (built-in accounts; Clerk has its own): current, new and confirmation, under the sign-up
 * password rule. The server checks everything again, limits wrong current passwords and signs out every other
 * session of the account.
 */
export function ChangePasswordCard(props: {
  email: string | null;
  fullName: string | null;
  changePassword: (input: { currentPassword: string; newPassword: string }) => Promise<void>;
}) {
  const [values, setValues] = useState<Record<Field, string>>({ current: '', new: '', confirm: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [banner, setBanner] = useState<{ tone: 'red' | 'green'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const set = (field: Field) => (value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBanner(null);
    setBusy(true);
    try {
      // The server's own rule, shown before sending; the server checks it again.
      const problem = (await loadPasswordRule()).passwordProblem(values.new, [props.email ?? '', props.fullName ?? ''].filter(Boolean));
      const found: Partial<Record<Field, string>> = {};
      if (problem) found.new = problem;
      else if (values.new === values.current) found.new = CHANGE_PASSWORD_MESSAGES.sameAsCurrent;
      if (values.confirm !== values.new) found.confirm = CHANGE_PASSWORD_MESSAGES.mismatch;
      setErrors(found);
      if (Object.keys(found).length) return;
      await props.changePassword({ currentPassword: values.current, newPassword: values.new });
      setValues({ current: '', new: '', confirm: '' });
      setBanner({ tone: 'green', text: CHANGE_PASSWORD_MESSAGES.done });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'wrong_password') setErrors({ current: err.message });
      else if (err instanceof ApiError && (err.code === 'WEAK_PASSWORD' || err.code === 'same_password')) setErrors({ new: err.message });
      else if (err instanceof ApiError && err.status < 500 && err.message) setBanner({ tone: 'red', text: err.message });
      else if (err instanceof TypeError)
        setBanner({ tone: 'red', text: 'No internet connection. Please check your network and try again.' });
      else setBanner({ tone: 'red', text: 'Your password could not be changed. Please try again.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card className="p-6">
      <h2 className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wide text-fg-muted">
        <KeyRound className="size-4 text-brand" aria-hidden />
        Change password
      </h2>
      <form className="mt-4 flex flex-col gap-4" onSubmit={submit} aria-label="Change password">
        {banner && <Banner tone={banner.tone}>{banner.text}</Banner>}
        <div className="grid gap-4 md:grid-cols-3">
          <Input
            label="Current password"
            name="current-password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={TEXT_LIMITS.passwordMax}
            value={values.current}
            error={errors.current}
            onChange={(e) => set('current')(e.target.value)}
          />
          <Input
            label="New password"
            name="new-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={TEXT_LIMITS.passwordMin}
            maxLength={TEXT_LIMITS.passwordMax}
            hint={`At least ${TEXT_LIMITS.passwordMin} characters, not a common password or your name.`}
            value={values.new}
            error={errors.new}
            onFocus={() => void loadPasswordRule()}
            onChange={(e) => set('new')(e.target.value)}
          />
          <Input
            label="Confirm new password"
            name="confirm-password"
            type="password"
            autoComplete="new-password"
            required
            maxLength={TEXT_LIMITS.passwordMax}
            value={values.confirm}
            error={errors.confirm}
            onChange={(e) => set('confirm')(e.target.value)}
          />
        </div>
        <p className="text-sm text-fg-muted">Changing your password signs you out on every other device and browser.</p>
        <Button type="submit" busy={busy} className="w-full sm:w-fit">
          Change password
        </Button>
      </form>
    </Card>
  );
}
