/** Where sign-in and sign-up land (product §2), in both builds, when no deep link is waiting. */
export const POST_AUTH_PATH = '/app/create-image';

/** The query parameter that carries a deep `/app/...` link through sign-in and sign-up. */
export const NEXT_PARAM = 'next';

/**
 * The page to land on after signing in: the deep `/app/...` link the visitor came from, when it is one of
 * ours, else /app/create-image. Anything that could leave the site (`//host`, `/\host`, a scheme, an
 * encoded trick) or lead outside the app is ignored: no open redirect.
 */
export function postAuthPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || /[\\\u0000-\u001f]/.test(next)) return POST_AUTH_PATH;
  const base = 'https://likeness.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return POST_AUTH_PATH;
  }
  if (url.origin !== base || !url.pathname.startsWith('/app/')) return POST_AUTH_PATH;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** `/sign-in` or `/sign-up`, carrying the deep link when there is one. */
export function authPath(page: '/sign-in' | '/sign-up', next: string | null | undefined): string {
  const target = postAuthPath(next);
  return target === POST_AUTH_PATH ? page : `${page}?${NEXT_PARAM}=${encodeURIComponent(target)}`;
}

/** Where a person lands once their own account is deleted: the sign-in page says so. */
export const ACCOUNT_DELETED_PATH = '/sign-in?deleted=1';

let accountDeleted = false;

/** Called as the person's own account deletion is sent: its streams end too, and must not lose the message. */
export function markAccountDeleted(deleted = true): void {
  accountDeleted = deleted;
}

/** The sign-in page to go to when this browser's session has ended (elsewhere, or by deleting the account). */
export const signedOutPath = () => (accountDeleted ? ACCOUNT_DELETED_PATH : '/sign-in');
