import { expect, test } from '@svc/playwright';

test('the API answers with the trace headers', async ({ page, svc }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Fetch the API' }).click();
  await expect(page.getByTestId('fetch-echo')).toContainText('traceparent');
  await expect(svc).toHaveNoErrors();
});

// Fails on the shop's bug: EXPIRED5 is not a coupon, and `discountFor` (src/coupons.ts) throws instead of skipping it.
test('coupons apply to the total', async ({ page, svc }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Apply the coupons' }).click();
  await expect(svc).toHaveNoErrors();
  await expect(page.getByTestId('total')).toBeVisible();
});

test('the about page opens', async ({ page }, testInfo) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'About' }).click();
  // Stands for a race the first attempt loses: with `retries: 1` the test ends flaky, not failed.
  expect(testInfo.retry, 'the first attempt loses the race').toBeGreaterThan(0);
  await expect(page.getByTestId('path')).toHaveText('/about');
});
