import { createHmac } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startReceiver, type Receiver } from '../../support/receiver';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';

/**
 * The Notifications page (`/notifications`) against a real server that may post to a local receiver
 * (`--allow-private-targets`): a webhook channel made and edited from the page, a test sent through it and seen by the
 * receiver and in the delivery log, rules reordered with the keyboard alone (checked through the API), a refused field
 * shown next to its input, and a read key that sees no change control.
 */

let server: CliServer;
let receiver: Receiver;
/** The signing secret the creation showed once; the receiver's requests must verify with it after an edit too. */
let signingSecret = '';

type Json = Record<string, unknown>;

const HOSTILE = 'ok <img src=x onerror="window.__notifyInjected = true">';

const verifies = (secret: string, headers: Record<string, string | string[] | undefined>, body: string): boolean => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
    .digest('base64');
  return String(headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
};

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  receiver = await startReceiver();
  // The receiver's answer is shown in the delivery log: markup in it must stay text.
  receiver.answer = () => ({ status: 200, body: HOSTILE });
  server = await startCliServer({ 'allow-private-targets': 'true' });
});
test.afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

test('channels: a bad URL is shown on its field; a webhook channel is created, tested and edited with its secret kept', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/notifications' });
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Channels' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('button', { name: 'New channel' }).click();
  const form = page.getByRole('form', { name: 'New channel' });
  await form.getByLabel('Name').fill('on-call hook');
  await form.getByLabel('URL').fill('ftp://hooks.example.com/svc');
  await form.getByRole('button', { name: 'Create channel' }).click();
  // The server's 400 names config.url: the message sits next to the URL input, which is marked invalid.
  const url = form.getByLabel('URL');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toHaveAccessibleDescription(/config\.url must be an https URL/);

  await url.fill(`${receiver.url}/hook`);
  await form.getByRole('button', { name: 'Create channel' }).click();
  const secret = page.getByRole('region', { name: 'Signing secret' }).locator('code');
  await expect(secret).toHaveText(/^whsec_/);
  signingSecret = (await secret.textContent()) ?? '';
  const row = page.getByRole('row', { name: /on-call hook/ });
  await expect(row).toContainText('Webhook');
  await expect(row).toContainText(`${receiver.url}/hook`);
  await expect(row.getByRole('cell', { name: 'secret', exact: true })).toBeVisible();

  await row.getByRole('button', { name: 'Send test to on-call hook' }).click();
  await expect(page.getByRole('status', { name: 'Test result for on-call hook' })).toContainText(
    /delivered HTTP 200 in \d/,
  );
  expect(receiver.received).toHaveLength(1);
  expect(receiver.received[0]).toMatchObject({ method: 'POST', path: '/hook' });
  expect(verifies(signingSecret, receiver.received[0]!.headers, receiver.received[0]!.body)).toBe(true);

  // Edit: a new URL, the secret field left empty: the server keeps the secret.
  await row.getByRole('button', { name: 'Edit on-call hook' }).click();
  const edit = page.getByRole('form', { name: 'Edit channel on-call hook' });
  await expect(edit.getByLabel('Signing secret')).toHaveValue('');
  await expect(edit.getByLabel('Signing secret')).toHaveAccessibleDescription(/Set\. Leave empty to keep it/);
  await edit.getByLabel('URL').fill(`${receiver.url}/hook2`);
  await edit.getByRole('button', { name: 'Save channel' }).click();
  await expect(page.getByText('Channel on-call hook saved.')).toBeVisible();
  await expect(row).toContainText(`${receiver.url}/hook2`);
  const channels = await controlGet<{ data: Json[] }>(server, '/notifications/channels');
  expect(channels.body.data).toMatchObject([
    { name: 'on-call hook', config: { url: `${receiver.url}/hook2` }, secrets_set: ['secret'] },
  ]);

  await row.getByRole('button', { name: 'Send test to on-call hook' }).click();
  await expect.poll(() => receiver.received.length).toBe(2);
  expect(receiver.received[1]).toMatchObject({ path: '/hook2' });
  expect(verifies(signingSecret, receiver.received[1]!.headers, receiver.received[1]!.body)).toBe(true);
  await expect(page.getByRole('status', { name: 'Test result for on-call hook' })).toContainText('delivered');

  // A second channel of another type, for the list's sake: its form has that type's fields.
  await page.getByRole('button', { name: 'New channel' }).click();
  const mail = page.getByRole('form', { name: 'New channel' });
  await mail.getByLabel('Type').selectOption('email');
  await mail.getByLabel('Name').fill('ops mail');
  await mail.getByLabel('To (comma-separated)').fill('oncall@example.com, lead@example.com');
  await mail.getByLabel('From', { exact: true }).fill('svc@example.com');
  await mail.getByLabel('SMTP host').fill('smtp.example.com');
  await mail.getByLabel('SMTP user').fill('svc');
  await mail.getByLabel('SMTP password').fill('hunter2-smtp');
  await mail.getByRole('button', { name: 'Create channel' }).click();
  const mailRow = page.getByRole('row', { name: /ops mail/ });
  await expect(mailRow).toContainText('oncall@example.com, lead@example.com');
  await expect(mailRow).toContainText('smtp.password');
  await expect(page.getByText('hunter2-smtp')).toHaveCount(0);

  await expectAccessible(page);
  await screenshot(page, testInfo, 'notifications');

  // Delete asks first, in place; Cancel keeps the channel, Confirm deletes it.
  await mailRow.getByRole('button', { name: 'Delete ops mail' }).click();
  await page.getByRole('group', { name: 'Confirm deleting ops mail' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(mailRow).toBeVisible();
  await mailRow.getByRole('button', { name: 'Delete ops mail' }).click();
  await expect(page.getByRole('button', { name: 'Confirm delete' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Channel ops mail deleted.')).toBeVisible();
  await expect(mailRow).toHaveCount(0);
  expect((await controlGet<{ data: Json[] }>(server, '/notifications/channels')).body.data.map((c) => c.name)).toEqual([
    'on-call hook',
  ]);
});

test('rules: three rules made on the page, reordered with the keyboard alone, the order saved', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/notifications?tab=rules' });
  await expect(page.getByRole('tab', { name: 'Rules' })).toHaveAttribute('aria-selected', 'true');
  for (const [name, severity] of [
    ['page critical', 'critical'],
    ['mail high', 'high'],
    ['everything else', null],
  ] as const) {
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Name').fill(name);
    if (severity) await form.getByRole('checkbox', { name: severity, exact: true }).check();
    await form.getByLabel('Environments (comma-separated; empty = any)').fill('production');
    await form.getByRole('checkbox', { name: 'on-call hook' }).check();
    await form.getByRole('button', { name: 'Create rule' }).click();
    await expect(page.getByText(`Rule ${name} created.`)).toBeVisible();
  }
  const rules = page.getByRole('list', { name: 'Rules in evaluation order' });
  await expect(rules.getByRole('listitem')).toHaveText([/page critical/, /mail high/, /everything else/]);

  // Keyboard only: Tab to the first rule's "down", Enter twice; focus follows the rule and the move is announced.
  await page.getByRole('button', { name: 'New rule' }).focus();
  const down = page.getByRole('button', { name: 'Move page critical down' });
  for (let i = 0; i < 10 && !(await down.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(down).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'moved' })).toHaveText(
    'page critical moved to position 2 of 3.',
  );
  await expect(down).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'moved' })).toHaveText(
    'page critical moved to position 3 of 3.',
  );
  // Now last: its "down" is disabled, so focus is on its "up".
  await expect(page.getByRole('button', { name: 'Move page critical up' })).toBeFocused();
  // Back over the rule above's Delete, Edit and Move down to its Move up.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('button', { name: 'Move everything else up' })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page.getByRole('status').filter({ hasText: 'moved' })).toHaveText(
    'everything else moved to position 1 of 3.',
  );
  await expect(rules.getByRole('listitem')).toHaveText([/everything else/, /mail high/, /page critical/]);

  // Edit keeps the rule's place: a delay of 5 minutes on the last one.
  await page.getByRole('button', { name: 'Edit page critical' }).click();
  const edit = page.getByRole('form', { name: 'Edit rule page critical' });
  await expect(edit.getByRole('checkbox', { name: 'critical', exact: true })).toBeChecked();
  await edit.getByLabel('Delay (seconds)').fill('-5');
  await edit.getByRole('button', { name: 'Save rule' }).click();
  await expect(edit.getByLabel('Delay (seconds)')).toHaveAttribute('aria-invalid', 'true');
  await edit.getByLabel('Delay (seconds)').fill('300');
  await edit.getByRole('button', { name: 'Save rule' }).click();
  await expect(page.getByText('Rule page critical saved.')).toBeVisible();
  await expect(rules.getByRole('listitem').last()).toContainText('after 5 min');

  const listed = await controlGet<{ data: Json[] }>(server, '/notifications/rules');
  expect(listed.body.data.map((r) => r.name)).toEqual(['everything else', 'mail high', 'page critical']);
  expect(listed.body.data[2]).toMatchObject({
    conditions: { severity: ['critical'], env: ['production'] },
    delay_seconds: 300,
  });

  // The tab is in the URL: a reload shows the rules, in the saved order.
  await page.reload();
  await expect(page.getByRole('list', { name: 'Rules in evaluation order' }).getByRole('listitem')).toHaveText([
    /everything else/,
    /mail high/,
    /page critical/,
  ]);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'notifications-rules');
});

test('deliveries: the test deliveries with state, latency and response; filters in the URL', async ({ page }) => {
  await signIn(page, server, { path: '/notifications?tab=rules' });
  // Arrow keys move between the tabs (ARIA tabs pattern); the chosen tab is in the URL.
  await page.getByRole('tab', { name: 'Rules' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Deliveries' })).toBeFocused();
  await expect(page).toHaveURL(/tab=deliveries/);
  const table = page.getByRole('table', { name: 'Notification deliveries' });
  const rows = table.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(2);
  const first = rows.first();
  await expect(first).toContainText('on-call hook (webhook)');
  await expect(first).toContainText('test');
  await expect(first).toContainText('delivered');
  await expect(first.getByRole('cell').nth(5)).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  await expect(first.getByRole('cell').nth(6)).toHaveText('1');
  await expect(first).toContainText(`200 ${HOSTILE}`);
  expect(await page.evaluate(() => (window as { __notifyInjected?: boolean }).__notifyInjected)).toBeUndefined();
  await expect(first.locator('img')).toHaveCount(0);

  const filters = page.getByRole('search', { name: 'Delivery filters' });
  await filters.getByLabel('State').selectOption('failed');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/state=failed/);
  await expect(page.getByText('No deliveries match.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('search', { name: 'Delivery filters' }).getByLabel('State')).toHaveValue('failed');
  await expect(page.getByText('No deliveries match.')).toBeVisible();
  await page.getByRole('search', { name: 'Delivery filters' }).getByLabel('State').selectOption('delivered');
  await page
    .getByRole('search', { name: 'Delivery filters' })
    .getByLabel('Channel')
    .selectOption({ label: 'on-call hook' });
  await page.getByRole('search', { name: 'Delivery filters' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/channel_id=ch_/);
  await expect(rows).toHaveCount(2);
  await expectAccessible(page);
});

test('deliveries: keyset pages of 50, the page in the URL', async ({ page }) => {
  const channel = (await controlGet<{ data: Json[] }>(server, '/notifications/channels')).body.data[0]!;
  // 50 more tests: 52 deliveries, two pages.
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${server.url}/control-plane/notifications/${String(channel.id)}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.controlKey}` },
    });
    expect(res.status).toBe(200);
  }
  await signIn(page, server, { path: '/notifications?tab=deliveries' });
  const rows = page
    .getByRole('table', { name: 'Notification deliveries' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(50);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(rows).toHaveCount(2);
  await page.reload();
  await expect(rows).toHaveCount(2);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'First page' }).click();
  await expect(rows).toHaveCount(50);
});

test('deliveries: the Latency header sorts by latency, slowest first, then fastest first', async ({ page }) => {
  await signIn(page, server, { path: '/notifications?tab=deliveries' });
  const table = page.getByRole('table', { name: 'Notification deliveries' });
  const rows = table.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(50);
  /** The latency column of the page, in ms, as shown. */
  const latencies = async () =>
    (await rows.locator('td:nth-child(6)').allTextContents()).map((text) => {
      const [value, unit] = text.split(' ');
      return Number(value) * (unit === 's' ? 1000 : 1);
    });
  const sorted = (values: number[], order: 1 | -1) =>
    values.every((v, i) => i === 0 || (v - values[i - 1]!) * order >= 0);
  await table.getByRole('button', { name: 'Latency' }).click();
  await expect(page).toHaveURL(/sort=latency&order=desc/);
  await expect(table.getByRole('columnheader', { name: 'Latency' })).toHaveAttribute('aria-sort', 'descending');
  // The rows shown change when the new page arrives.
  await expect.poll(async () => sorted(await latencies(), -1)).toBe(true);
  await table.getByRole('button', { name: 'Latency' }).click();
  await expect(page).toHaveURL(/sort=latency&order=asc/);
  await expect.poll(async () => sorted(await latencies(), 1)).toBe(true);
  await expect(rows).toHaveCount(50);
});

test('a read key sees channels, rules and deliveries with no change control', async ({ page }) => {
  const out = await server.admin('keys', 'create', '--scope', 'read', '--name', 'viewer');
  const key = /svc_read_\S+/.exec(out)?.[0];
  expect(key).toBeDefined();
  await signIn(page, server, { key, path: '/notifications' });
  await expect(page.getByRole('note')).toContainText('Read-only key');
  await expect(page.getByRole('row', { name: /on-call hook/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /New channel|Send test|Edit|Delete/ })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Rules' }).click();
  await expect(page.getByRole('list', { name: 'Rules in evaluation order' }).getByRole('listitem')).toHaveCount(3);
  await expect(page.getByRole('button', { name: /New rule|Move|Edit|Delete/ })).toHaveCount(0);
  await expectAccessible(page);
});
