/**
 * The identity provider's publishable key rule (product §5, §8), shared by the server's configuration and the
 * hosted SPA's start: a Clerk publishable key starts with pk_test_ or pk_live_.
 */
export const INVALID_PUBLISHABLE_KEY = 'Invalid identity provider publishable key format';
export const PUBLISHABLE_KEY_PATTERN = /^pk_(test|live)_\S+$/;

export const isPublishableKey = (key: string): boolean => PUBLISHABLE_KEY_PATTERN.test(key);
