import { AuthForm } from '@/features/auth/components/auth-form';
import { usePageTitle } from '@/lib/use-page-title';

export default function SignUpPage() {
  usePageTitle('Sign up');
  return <AuthForm mode="sign-up" />;
}
