import { ForgotPasswordForm } from '@/features/auth/components/password-reset';
import { usePageTitle } from '@/lib/use-page-title';

export default function ForgotPasswordPage() {
  usePageTitle('Forgot password?');
  return <ForgotPasswordForm />;
}
