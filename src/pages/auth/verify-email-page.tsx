import { VerifyEmailResult } from '@/features/auth/components/password-reset';
import { usePageTitle } from '@/lib/use-page-title';

export default function VerifyEmailPage() {
  usePageTitle('Confirm your e-mail address');
  return <VerifyEmailResult />;
}
