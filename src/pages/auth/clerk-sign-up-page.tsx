import { ClerkAuthScreen } from '@/features/auth/components/clerk-auth-screen';
import { usePageTitle } from '@/lib/use-page-title';

export default function ClerkSignUpPage() {
  usePageTitle('Sign up');
  return <ClerkAuthScreen mode="sign-up" />;
}
