import { AuthForm } from '@/features/auth/components/auth-form';
import { usePageTitle } from '@/lib/use-page-title';

export default function SignInPage() {
  usePageTitle('Sign in');
  return <AuthForm mode="sign-in" />;
}
