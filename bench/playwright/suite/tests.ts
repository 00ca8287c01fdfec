import type { Page } from '@playwright/test';

/** Tests in the suite: each loads the page (with the SDK's script tag) and checks one text. */
export const TESTS = 40;

/** One trivial test: the page loads and its script ran. */
export async function trivial(page: Page, check: (text: string) => Promise<void>): Promise<void> {
  await page.goto('/');
  await check('ready');
}
