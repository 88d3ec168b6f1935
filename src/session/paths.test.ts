import { describe, expect, it } from 'vitest';
import { authPath, POST_AUTH_PATH, postAuthPath } from './paths';

describe('the landing page after sign-in', () => {
  it('is the deep /app link the visitor came from, with its query and hash', () => {
    expect(postAuthPath('/app/my-generations?page=2')).toBe('/app/my-generations?page=2');
    expect(postAuthPath('/app/explore#top')).toBe('/app/explore#top');
    expect(postAuthPath(null)).toBe(POST_AUTH_PATH);
    expect(postAuthPath('')).toBe(POST_AUTH_PATH);
  });

  it('never leaves the site or the app (no open redirect)', () => {
    for (const next of [
      'https://evil.example/app/x',
      '//evil.example/app/x',
      '/\\evil.example/app/x',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/app/../../evil',
      '/sign-in',
      '/',
      '/application',
      '/app%2F..%2Fsign-in',
      '/app/\nx',
      'app/create-image',
    ]) {
      expect(postAuthPath(next), next).toBe(POST_AUTH_PATH);
    }
    // Dot segments are resolved first: what lands is still inside /app/.
    expect(postAuthPath('/app/x/../profile')).toBe('/app/profile');
  });

  it('is carried by the sign-in and sign-up links only when it is not the default', () => {
    expect(authPath('/sign-in', '/app/profile')).toBe('/sign-in?next=%2Fapp%2Fprofile');
    expect(authPath('/sign-up', '/app/create-image')).toBe('/sign-up');
    expect(authPath('/sign-up', '//evil.example')).toBe('/sign-up');
  });
});
