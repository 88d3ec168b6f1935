import { ResetPasswordForm } from '@/features/auth/components/password-reset';
import { usePageTitle } from '@/lib/use-page-title';

export default function ResetPasswordPage() {
  usePageTitle('Set a new password');
  return <ResetPasswordForm />;
}
