import { expect, test } from '@svc/playwright';
import { TESTS, trivial } from './tests';

for (let i = 0; i < TESTS; i++) {
  test(`trivial ${i}`, async ({ page }) => {
    await trivial(page, (text) => expect(page.locator('#out')).toHaveText(text));
  });
}
