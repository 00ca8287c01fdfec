import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { startCliServer, type TestServer } from '../support/svc-server';

/**
 * The page a person gets at the server's address (`GET /`), in Chromium: it renders under its strict CSP (no
 * violation reported), every link is reached with the keyboard in reading order and leads somewhere, and axe finds no
 * accessibility violation.
 */

let t: TestServer;

test.beforeAll(async () => {
  t = await startCliServer();
});
test.afterAll(async () => {
  await t?.close();
});

test('the landing page reads, is reached by keyboard, passes axe, and its links lead somewhere', async ({ page }, testInfo) => {
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') cspViolations.push(message.text());
  });
  await page.goto(`${t.url}/`);
  await expect(page).toHaveTitle('svc reference server');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('svc reference server');
  // The inline style is allowed by its hash: were it refused, the body would keep the browser's serif default.
  expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui');
  await page.screenshot({ path: testInfo.outputPath('landing.png'), fullPage: true });

  const links = page.getByRole('link');
  const names = await links.allInnerTexts();
  expect(names).toEqual(['Session replay viewer', 'API reference', 'OpenAPI document', 'Health check']);
  // Tab reaches each link in reading order, with a visible focus.
  for (const name of names) {
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    await expect(focused).toHaveText(name);
    expect(await focused.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
  }
  for (const href of await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))) {
    expect((await page.request.get(href)).status(), href).toBe(200);
  }

  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  expect(cspViolations).toEqual([]);
});
