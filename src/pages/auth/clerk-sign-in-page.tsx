import { ClerkAuthScreen } from '@/features/auth/components/clerk-auth-screen';
import { usePageTitle } from '@/lib/use-page-title';

export default function ClerkSignInPage() {
  usePageTitle('Sign in');
  return <ClerkAuthScreen mode="sign-in" />;
}
