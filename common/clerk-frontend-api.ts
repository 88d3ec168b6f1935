/**
 * Clerk's Frontend API host, read from a publishable key as @clerk/shared's parsePublishableKey reads it:
 * `pk_test_` or `pk_live_`, then base64 of `<host>$` (a development instance such as
 * `foo-bar-13.clerk.accounts.dev`, or a production instance's own domain such as `clerk.example.com`).
 * clerk-js is loaded from this host and talks to it; the SPA and the Content-Security-Policy both need it.
 */

/** A plain DNS host name: letters, digits, hyphens, at least one dot; no port, path, space, quote or `;`. */
const HOST_NAME = /^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** The Frontend API host of `publishableKey`, or why there is none. */
export function clerkFrontendApi(publishableKey: string): { host: string } | { error: string } {
  const match = /^pk_(test|live)_([A-Za-z0-9+/]+={0,2})$/.exec(publishableKey);
  if (!match) return { error: 'must be a Clerk publishable key: pk_test_… or pk_live_… followed by base64' };
  let decoded: string;
  try {
    decoded = atob(match[2]);
  } catch {
    return { error: 'is not valid base64 after pk_test_/pk_live_' };
  }
  if (!decoded.endsWith('$') || decoded.slice(0, -1).includes('$'))
    return { error: 'does not decode to a Clerk Frontend API host (<host>$)' };
  const host = decoded.slice(0, -1);
  if (!HOST_NAME.test(host)) {
    return { error: `decodes to ${JSON.stringify(host)}, which is not a plain host name (letters, digits, dots and hyphens only)` };
  }
  return { host: host.toLowerCase() };
}
