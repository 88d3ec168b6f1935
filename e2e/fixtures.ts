import { test as base, expect, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';

const PORT = Number(process.env.E2E_PORT ?? 4310);
export const ORIGIN = `http://127.0.0.1:${PORT}`;
const CONTROL = `http://127.0.0.1:${PORT + 100}`;

export interface TestUser {
  email: string;
  password: string;
  name: string;
}

/** Grants (or with a negative amount removes) credits, as an operator would. */
export async function withCredits(user: TestUser, amount: number): Promise<number> {
  const res = await fetch(`${CONTROL}/credits`, { method: 'POST', body: JSON.stringify({ email: user.email, amount }) });
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()).balance;
}

export function newUser(name = 'Dana Park'): TestUser {
  return { email: `e2e-${randomUUID().slice(0, 8)}@example.com`, password: 'correct-horse-1', name };
}

/** Creates an account through the API (fast) and leaves the page signed in. */
export async function signUp(page: Page, user: TestUser = newUser()): Promise<TestUser> {
  const res = await page.request.post('/api/auth/sign-up/email', {
    data: user,
    headers: { origin: ORIGIN },
  });
  expect(res.ok()).toBeTruthy();
  return user;
}

export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 1280) < 768;

export const test = base;
export { expect };
