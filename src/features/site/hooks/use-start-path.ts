import { useSessionUser } from '@/session/api';

/** Where 'Try Now' and 'Choose plan' lead (product §2): the app when signed in, otherwise sign-up. */
export function useStartPath(): string {
  return useSessionUser().data ? '/app/create-image' : '/sign-up';
}
