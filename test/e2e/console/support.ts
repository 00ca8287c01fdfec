import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';
import type { TestServer } from '../../support/svc-server';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** On the sign-in page: "Use an API key instead", which shows the key form with its field focused. */
export async function openKeySignIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Use an API key instead' }).click();
  await expect(page.getByLabel('Control or read key')).toBeFocused();
}

/**
 * Signs in to the console with an API key the way the links `svc-server start` prints do: `path` (the console's root
 * by default) with the key in its fragment, which the console takes into the tab's storage and wipes from the address
 * bar. One page load instead of the sign-in form's two; shell.spec.ts signs in through the form itself. Resolves once
 * the signed-in frame (its navigation) is shown.
 */
export async function signIn(
  page: Page,
  server: Pick<TestServer, 'url' | 'controlKey'>,
  options: { key?: string; path?: string } = {},
): Promise<void> {
  await page.goto(`${server.url}${options.path ?? '/'}#key=${encodeURIComponent(options.key ?? server.controlKey)}`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
}

/** axe-core on the page as it is now: no serious or critical violation (the bar), listed by rule if any. */
export async function expectAccessible(page: Page, exclude: string[] = []): Promise<void> {
  let builder = axeOf(page);
  for (const selector of exclude) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

/**
 * axe-core in its legacy mode: `axe.run` in the page, injected into each of its frames. The default mode merges the
 * frames' results in a new blank page, which costs half of each check's time, and the console's pages have no
 * cross-origin frames that would need it.
 */
export const axeOf = (page: Page): AxeBuilder => new AxeBuilder({ page }).setLegacyMode();

/**
 * A full-page screenshot into the test's output, and into docs/console/ when `UPDATE_CONSOLE_SCREENSHOTS=1`
 * (how the pictures in docs/console.md are made; look at them before committing).
 */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
  if (process.env.UPDATE_CONSOLE_SCREENSHOTS === '1') {
    const dir = join(ROOT, 'docs', 'console');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  }
}

/** Every request the page sends to the server, to show no key ever travels in a URL. */
export function recordRequestUrls(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}
