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

  it('keeps the sandbox for a plain start and for a local http address', () => {
    expect(issuesOf({})).toEqual([]);
    expect(issuesOf({ PUBLIC_URL: 'http://localhost:3000' })).toEqual([]);
  });

  it('refuses other values of SANDBOX_PAYMENTS and PROXY_HOPS', () => {
    expect(issuesOf({ SANDBOX_PAYMENTS: 'yes' })[0]).toMatch(/^SANDBOX_PAYMENTS: /);
    expect(issuesOf({ PROXY_HOPS: '0' })[0]).toMatch(/^PROXY_HOPS: /);
  });
});
