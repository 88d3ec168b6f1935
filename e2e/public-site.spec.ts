import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { LAYOUT } from '../common/product';
import { PLANS } from '../common/plans';
import { expect, isPhone, signUp, test } from './fixtures';

const PUBLIC_PAGES = ['/', '/how-it-works', '/pricing', '/faq', '/terms-of-service', '/privacy-policy'];
const SUPPORT_EMAIL = 'support@likeness.app'; // server/config.ts default, which the e2e server uses

/** The header's navigation: the desktop nav, or the slide-in menu (opened first) on phones. */
async function siteNav(page: Page): Promise<Locator> {
  if (!isPhone(page)) return page.getByRole('navigation', { name: 'Main' });
  await page.getByRole('button', { name: 'Open menu' }).click();
  return page.getByRole('dialog');
}

/** Where the section's top is relative to the viewport, once smooth scrolling has finished. */
async function expectSectionAtOffset(page: Page, id: string) {
  await expect
    .poll(() => page.locator(`#${id}`).evaluate((el) => Math.round(el.getBoundingClientRect().top)), { timeout: 5000 })
    .toBe(LAYOUT.anchorOffsetPx);
}

const footer = (page: Page) => page.getByRole('contentinfo');

test.describe('signed out', () => {
  test('header, hero and closing call to action lead to sign-in and sign-up', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Try Now' }).first().click();
    await expect(page).toHaveURL(/\/sign-up$/);

    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Try Now' }).last()).toHaveAttribute('href', '/sign-up');
    let nav = await siteNav(page);
    const actions = isPhone(page) ? nav : page.getByRole('banner');
    await expect(actions.getByRole('link', { name: 'Dashboard' })).toHaveCount(0);
    await actions.getByRole('link', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);

    await page.goto('/');
    nav = await siteNav(page);
    await (isPhone(page) ? nav : page.getByRole('banner')).getByRole('link', { name: 'Sign up' }).click();
    await expect(page).toHaveURL(/\/sign-up$/);
  });

  test('every Choose plan goes to sign-up, on the landing and on /pricing', async ({ page }) => {
    for (const path of ['/', '/pricing']) {
      await page.goto(path);
      const buttons = page.getByRole('link', { name: /^Choose plan/ });
      await expect(buttons).toHaveCount(PLANS.length);
      for (const b of await buttons.all()) await expect(b).toHaveAttribute('href', '/sign-up');
      await buttons.nth(1).click();
      await expect(page).toHaveURL(/\/sign-up$/);
    }
  });

  test('the footer links go where the spec says and show the contact address', async ({ page, context }) => {
    await page.goto('/pricing');
    const f = footer(page);
    await expect(f.getByRole('link', { name: SUPPORT_EMAIL })).toHaveAttribute('href', `mailto:${SUPPORT_EMAIL}`);
    await expect(f).toContainText(`Contact: ${SUPPORT_EMAIL}`);

    const profile = f.getByRole('link', { name: 'Likeness on Instagram' });
    await expect(profile).toHaveAttribute('href', /^https:\/\//);
    await expect(profile).toHaveAttribute('rel', /noopener/);
    await expect(profile).toHaveAttribute('target', '_blank');
    // The external profile is not followed in tests (no network); the other three icons go to /login.
    for (const name of ['Likeness on X', 'Likeness on LinkedIn', 'Likeness on YouTube']) {
      await page.goto('/pricing');
      await footer(page).getByRole('link', { name }).click();
      await expect(page).toHaveURL(/\/login$/);
      await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    }

    const targets: Array<[string, 'link' | 'button', RegExp, string?]> = [
      ['About', 'link', /\/about$/, 'Page not found'],
      ['Blog', 'link', /\/blog$/, 'Page not found'],
      ['Careers', 'button', /\/login$/, 'Page not found'],
      ['Terms', 'link', /\/terms-of-service$/, 'Terms of Service'],
      ['Privacy', 'link', /\/privacy-policy$/, 'Privacy Policy'],
      ['Pricing', 'link', /\/pricing$/, 'Pricing'],
    ];
    for (const [name, role, url, heading] of targets) {
      await page.goto('/faq');
      await footer(page).getByRole(role, { name, exact: true }).click();
      await expect(page, name).toHaveURL(url);
      if (heading) await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    }

    await page.goto('/faq');
    await footer(page).getByRole('link', { name: 'Features' }).click();
    await expect(page).toHaveURL(/\/#features$/);
    await expectSectionAtOffset(page, 'features');
    expect(context.pages()).toHaveLength(1);
  });
});

test.describe('signed in', () => {
  test('Dashboard, Try Now and Choose plan go to the app; Sign out returns home signed out', async ({ page }) => {
    await signUp(page);
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Try Now' }).first()).toHaveAttribute('href', '/app/create-image');
    for (const b of await page.getByRole('link', { name: /^Choose plan/ }).all())
      await expect(b).toHaveAttribute('href', '/app/create-image');

    await page.getByRole('link', { name: 'Try Now' }).first().click();
    await expect(page).toHaveURL(/\/app\/create-image$/);

    await page.goto('/pricing');
    await page
      .getByRole('link', { name: /^Choose plan/ })
      .first()
      .click();
    await expect(page).toHaveURL(/\/app\/create-image$/);

    await page.goto('/how-it-works');
    let nav = await siteNav(page);
    let actions = isPhone(page) ? nav : page.getByRole('banner');
    await expect(actions.getByRole('link', { name: 'Sign in' })).toHaveCount(0);
    await actions.getByRole('link', { name: 'Dashboard' }).click();
    await expect(page).toHaveURL(/\/app\/create-image$/);

    await page.goto('/pricing');
    nav = await siteNav(page);
    actions = isPhone(page) ? nav : page.getByRole('banner');
    await actions.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/$/);
    nav = await siteNav(page);
    await expect((isPhone(page) ? nav : page.getByRole('banner')).getByRole('link', { name: 'Sign in' })).toBeVisible();
  });
});

test('header links scroll smoothly to each section 80px below the top and set the hash', async ({ page }) => {
  await page.goto('/');
  for (const [name, id] of [
    ['Pricing', 'pricing'],
    ['FAQ', 'faq'],
    ['How It Works', 'features'],
  ] as const) {
    const nav = await siteNav(page);
    await nav.getByRole('link', { name, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/#${id}$`));
    await expectSectionAtOffset(page, id);
  }
  const nav = await siteNav(page);
  await nav.getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);

  // The hero's How It Works scrolls to the features section too.
  await page.getByRole('link', { name: 'How It Works', exact: true }).last().click();
  await expect(page).toHaveURL(/\/#features$/);
  await expectSectionAtOffset(page, 'features');

  // From another page: to the landing page first, then to the section.
  await page.goto('/terms-of-service');
  await (await siteNav(page)).getByRole('link', { name: 'FAQ' }).click();
  await expect(page).toHaveURL(/\/#faq$/);
  await expectSectionAtOffset(page, 'faq');
});

test('the FAQ keeps one item open at a time', async ({ page }) => {
  await page.goto('/#faq');
  const faq = page.locator('#faq');
  const first = faq.getByRole('button', { name: 'How many photos do I need to upload?' });
  const second = faq.getByRole('button', { name: 'How long does training take?' });
  await first.click();
  await expect(first).toHaveAttribute('aria-expanded', 'true');
  await expect(faq.getByText('Upload 10-15 photos of yourself.')).toBeVisible();
  await second.click();
  await expect(second).toHaveAttribute('aria-expanded', 'true');
  await expect(first).toHaveAttribute('aria-expanded', 'false');
  await expect(faq.getByText('Training your character takes 5-10 minutes.')).toBeVisible();
  await expect(faq.locator('[aria-expanded="true"]')).toHaveCount(1);
  await second.click();
  await expect(second).toHaveAttribute('aria-expanded', 'false');
});

test('the mobile menu opens, keeps focus inside, closes with Escape and navigates', async ({ page }) => {
  const open = page.getByRole('banner').getByRole('button', { name: 'Open menu' });
  await page.goto('/pricing');
  if (!isPhone(page)) {
    await expect(open).toBeHidden();
    return;
  }
  await open.click();
  const menu = page.getByRole('dialog');
  await expect(menu).toBeVisible();
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    expect(await menu.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(open).toBeFocused();

  await open.click();
  await menu.getByRole('link', { name: 'Pricing' }).click();
  await expect(menu).toBeHidden();
  await expect(page).toHaveURL(/\/#pricing$/);
  await expectSectionAtOffset(page, 'pricing');
});

test('the landing and how-it-works pages keep their own numbers; its call to action links as specified', async ({ page }) => {
  await page.goto('/');
  const main = page.getByRole('main');
  await expect(main).toContainText('Upload 10-15 photos of yourself');
  await expect(main).toContainText('5-10 minutes');
  await expect(page.locator('#features').getByRole('listitem')).toHaveCount(3);
  await expect(page.getByTestId('plan-STANDARD')).toContainText('Popular');
  for (const plan of PLANS) {
    const card = page.getByTestId(`plan-${plan.id}`);
    await expect(card).toContainText(`$${plan.priceUsd}`);
    await expect(card).toContainText(plan.creditsText);
    for (const f of plan.features) await expect(card).toContainText(f);
  }
  await expect(page.getByTestId('plan-BASIC')).not.toContainText('Popular');

  await page.goto('/how-it-works');
  await expect(page.getByRole('main')).toContainText('10-20');
  await page.getByRole('button', { name: 'How many photos do I need?' }).click();
  await expect(page.getByText('5-10 good photos are enough')).toBeVisible();
  await page.getByRole('button', { name: 'How long does training take?' }).click();
  await expect(page.getByText('Training usually takes 15-30 minutes.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'View Pricing' })).toHaveAttribute('href', '/pricing');
  await page.getByRole('link', { name: 'Get Started' }).click();
  await expect(page).toHaveURL(/\/signup$/);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

  await page.goto('/how-it-works');
  await page.getByRole('link', { name: 'View Pricing' }).click();
  await expect(page).toHaveURL(/\/pricing$/);

  await page.goto('/faq');
  await expect(page.getByRole('main')).toContainText('Coming soon');
});

test('the landing presents photo shoots between how-it-works and pricing: packs of 8–20 briefs, followed live, one ZIP', async ({
  page,
}) => {
  await page.goto('/');
  const section = page.locator('#photo-shoots');
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByRole('heading', { level: 2, name: 'A whole photo shoot in one click' })).toBeVisible();
  await expect(section).toContainText('each pack holds 8–20 briefs');
  await expect(section.getByRole('heading', { name: 'Followed live' })).toBeVisible();
  await expect(section.getByRole('heading', { name: 'Downloaded as one ZIP' })).toBeVisible();
  await expect(section).toContainText('Each photo uses 10 credits, and a photo that fails is refunded.');
  // The drawing of a shoot under way: four photos taken, of eight.
  await expect(section.getByRole('img')).toHaveCount(4);
  await expect(section).toContainText('4 of 8 ready');
  // The spec's sections keep their anchors and order around it.
  const order = await page.evaluate(() =>
    [...document.querySelectorAll('main section[id]')]
      .map((el) => el.id)
      .filter((id) => ['features', 'photo-shoots', 'pricing', 'faq'].includes(id)),
  );
  expect(order).toEqual(['features', 'photo-shoots', 'pricing', 'faq']);
  await expect(page.locator('#features').getByRole('listitem')).toHaveCount(3);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
});

test('the legal pages state what product §1 states', async ({ page }) => {
  await page.goto('/terms-of-service');
  const terms = page.getByRole('main');
  for (const text of [
    '18 and over',
    'including commercial use',
    'NSFW content is prohibited',
    'permanent closure of your account without refund',
    'about 30 days',
    'depends on your account',
    'not',
    'Greek law',
    "two weeks' notice",
    '2025-06-30',
    SUPPORT_EMAIL,
  ]) {
    await expect(terms, text).toContainText(text);
  }
  await page.goto('/privacy-policy');
  const privacy = page.getByRole('main');
  for (const text of [
    'do not train our models on user photos',
    'about 30 days',
    'depends on your account',
    'Greek law',
    "two weeks' notice",
    '2025-06-30',
    '18 and over',
    SUPPORT_EMAIL,
  ]) {
    await expect(privacy, text).toContainText(text);
  }
});

test('each public page has its title, description, social-card tags, ordered headings and sized images', async ({ page }) => {
  const titles = new Set<string>();
  for (const path of PUBLIC_PAGES) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    const meta = await page.evaluate(() => {
      const get = (sel: string) => document.head.querySelector<HTMLMetaElement>(sel)?.content ?? '';
      const levels = [...document.querySelectorAll('main h1, main h2, main h3, main h4')].map((h) => Number(h.tagName[1]));
      const images = [...document.querySelectorAll('main img, main svg[role="img"]')].map((el) => ({
        label: el.getAttribute('alt') ?? el.getAttribute('aria-label'),
        width: el.getAttribute('width'),
        height: el.getAttribute('height'),
      }));
      return {
        title: document.title,
        description: get('meta[name="description"]'),
        ogTitle: get('meta[property="og:title"]'),
        ogDescription: get('meta[property="og:description"]'),
        twitterTitle: get('meta[name="twitter:title"]'),
        levels,
        images,
      };
    });
    expect(meta.title, path).toContain('Likeness');
    expect(meta.description.length, path).toBeGreaterThan(30);
    expect(meta.ogTitle, path).toBe(meta.title);
    expect(meta.twitterTitle, path).toBe(meta.title);
    expect(meta.ogDescription, path).toBe(meta.description);
    titles.add(meta.title);
    expect(meta.levels[0], path).toBe(1);
    meta.levels.forEach((level, i) => i > 0 && expect(level - meta.levels[i - 1], `${path} heading ${i}`).toBeLessThanOrEqual(1));
    for (const img of meta.images) {
      expect(img.label, path).toBeTruthy();
      expect(Number(img.width), path).toBeGreaterThan(0);
      expect(Number(img.height), path).toBeGreaterThan(0);
    }
  }
  expect(titles.size).toBe(PUBLIC_PAGES.length);
});

test('no serious or critical accessibility violations on any public page', async ({ page }) => {
  // A full axe pass on every public page, one after another: more than one test's time on a loaded machine.
  test.slow();
  for (const path of PUBLIC_PAGES) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).analyze();
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      path,
    ).toEqual([]);
  }
});
