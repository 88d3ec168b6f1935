import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const issuesOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
};

describe('loadConfig: payments on a server users reach', () => {
  it('refuses an https PUBLIC_URL without Creem, naming both ways out', () => {
    const [issue] = issuesOf({ PUBLIC_URL: 'https://likeness.example' });
    expect(issue).toMatch(/PUBLIC_URL/);
    expect(issue).toMatch(/set CREEM_API_KEY/);
    expect(issue).toMatch(/SANDBOX_PAYMENTS=allow/);
  });

  it('refuses a hosted server whose SPA is served over https without Creem, though it has no PUBLIC_URL', () => {
    const pem = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----';
    const hosted = { CLERK_JWT_KEY: pem, DATABASE_URL: 'postgres://db.example/app', AUTH_SECRET: 'x'.repeat(40) };
    const spa: Record<string, string>[] = [
      { ALLOWED_ORIGINS: 'https://app.likeness.example' },
      { CLERK_AUTHORIZED_PARTIES: 'https://app.likeness.example' },
    ];
    for (const origins of spa) {
      const issues = issuesOf({ ...hosted, ...origins });
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/origins .* are https/);
      expect(issuesOf({ ...hosted, ...origins, SANDBOX_PAYMENTS: 'allow' })).toEqual([]);
    }
    // A developer's hosted setup on their own machine keeps the sandbox.
    expect(issuesOf({ ...hosted, ALLOWED_ORIGINS: 'http://localhost:5173' })).toEqual([]);
  });

  it('starts the sandbox when the operator says so, and with Creem configured', () => {
    expect(issuesOf({ PUBLIC_URL: 'https://likeness.example', SANDBOX_PAYMENTS: 'allow' })).toEqual([]);
    expect(
      issuesOf({
        PUBLIC_URL: 'https://likeness.example',
        CREEM_API_KEY: 'creem_test_x',
        CREEM_WEBHOOK_SECRET: 'whsec_x',
        CREEM_PRODUCT_BASIC: 'a',
        CREEM_PRODUCT_STANDARD: 'b',
        CREEM_PRODUCT_PROFESSIONAL: 'c',
      }),
    ).toEqual([]);
  });

  it("refuses Clerk with Creem unless Clerk's webhooks reach the server (an account deleted there must stop its subscription)", () => {
    const pem = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----';
    const env = {
      CLERK_JWT_KEY: pem,
      ALLOWED_ORIGINS: 'https://app.likeness.example',
      CREEM_API_KEY: 'creem_x',
      CREEM_WEBHOOK_SECRET: 'whsec_x',
      CREEM_PRODUCT_BASIC: 'a',
      CREEM_PRODUCT_STANDARD: 'b',
      CREEM_PRODUCT_PROFESSIONAL: 'c',
    };
    expect(issuesOf(env)).toEqual([expect.stringMatching(/^CLERK_WEBHOOK_SIGNING_SECRET: required with Clerk and Creem/)]);
    expect(issuesOf({ ...env, CLERK_WEBHOOK_SIGNING_SECRET: 'whsec_clerk' })).toEqual([]);
  });

  it('keeps the sandbox for a plain start and for a local http address', () => {
    expect(issuesOf({})).toEqual([]);
    expect(issuesOf({ PUBLIC_URL: 'http://localhost:3000' })).toEqual([]);
  });

  it('refuses other values of SANDBOX_PAYMENTS and PROXY_HOPS', () => {
    expect(issuesOf({ SANDBOX_PAYMENTS: 'yes' })[0]).toMatch(/^SANDBOX_PAYMENTS: /);
    expect(issuesOf({ PROXY_HOPS: '0' })[0]).toMatch(/^PROXY_HOPS: /);
  });
});
