import { describe, expect, it } from 'vitest';
import type { RecipeStep } from '../../wire/replay';
import { PlaywrightExport } from '../../server/src/replay/export/playwright-spec';
import { specTypeErrors } from '../support/spec-typecheck';

/**
 * The Playwright export on a hand-built rrweb recording: rrweb's event and node numbers (EventType, IncrementalSource,
 * MouseInteractions, NodeType) written out as rrweb 2.1 emits them.
 */
const EVENT = { FullSnapshot: 2, Incremental: 3, Meta: 4, Custom: 5 } as const;
const SOURCE = { Mutation: 0, MouseInteraction: 2, Input: 5 } as const;
const CLICK = 2;

type Node = Record<string, unknown>;
const el = (
  id: number,
  tagName: string,
  attributes: Record<string, string | true> = {},
  childNodes: Node[] = [],
): Node => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
});
const text = (id: number, textContent: string): Node => ({ type: 3, id, textContent });
const page = (...body: Node[]): Node => ({
  type: 0,
  id: 1,
  childNodes: [
    { type: 1, id: 2, name: 'html', publicId: '', systemId: '' },
    el(3, 'html', {}, [el(4, 'head'), el(5, 'body', {}, body)]),
  ],
});

let clock = 1_700_000_000_000;
const event = (type: number, data: Record<string, unknown>) => ({ type, timestamp: (clock += 100), data });
const meta = (href: string) => event(EVENT.Meta, { href, width: 1280, height: 720 });
const snapshot = (node: Node) => event(EVENT.FullSnapshot, { node, initialOffset: { top: 0, left: 0 } });
const click = (id: number) =>
  event(EVENT.Incremental, { source: SOURCE.MouseInteraction, type: CLICK, id, x: 1, y: 1 });
const input = (id: number, value: string, isChecked = false) =>
  event(EVENT.Incremental, { source: SOURCE.Input, id, text: value, isChecked });
const mutation = (data: Record<string, unknown>) =>
  event(EVENT.Incremental, { source: SOURCE.Mutation, texts: [], attributes: [], removes: [], adds: [], ...data });
const navigation = (url: string, trigger = 'pushState') =>
  event(EVENT.Custom, { tag: 'navigation', payload: { url, title: 'Shop', trigger } });

const MASK = '********';

/** The shop's first page: buttons with and without test ids, fields of every kind, a masked field and a link. */
const cartPage = page(
  el(6, 'main', {}, [
    el(7, 'h1', {}, [text(8, 'Shop')]),
    el(9, 'button', { 'data-testid': 'buy' }, [text(10, 'Buy')]),
    el(11, 'button', { class: 'primary' }, [el(13, 'span', {}, [text(14, ' Add to  cart ')])]),
    el(15, 'input', { id: 'email', type: 'email', value: '' }),
    el(16, 'input', { name: 'card-holder', type: 'text', value: MASK }),
    el(17, 'input', { name: 'terms', type: 'checkbox' }),
    el(18, 'select', { name: 'size' }, [
      el(40, 'option', { value: 'S' }, [text(41, 'S')]),
      el(42, 'option', { value: 'M' }, [text(43, 'M')]),
    ]),
    el(19, 'a', { href: '/about' }, [text(20, 'About')]),
    el(21, 'div', { class: 'list' }, [
      el(22, 'button', {}, [text(26, 'Remove')]),
      el(23, 'button', {}, [text(27, 'Remove')]),
    ]),
    el(24, 'input', { name: 'qty', type: 'number' }),
    el(25, 'button', { class: 'ob-mask' }, [text(28, MASK)]),
    el(29, 'label', {}, [text(31, 'Terms')]),
  ]),
);

function recordedSession(): PlaywrightExport {
  const exporter = new PlaywrightExport();
  exporter.addChunk('replay-1', [
    meta('http://shop.test/cart?step=1'),
    snapshot(cartPage),
    click(10), // the text inside the test-id button
    click(14), // the text of a span inside a button without test id or id
    click(15), // focusing the e-mail field
    input(15, 'a'),
    input(15, 'ada@example.com'),
    input(16, MASK),
    click(29), // the label: the checkbox's own input event replays it
    input(17, '', true),
  ]);
  exporter.addChunk('replay-1', [
    input(18, 'M'),
    input(24, MASK),
    click(23), // the second of two identical "Remove" buttons
    mutation({ adds: [{ parentId: 6, nextId: null, node: el(30, 'button', {}, [text(32, 'Confirm order')]) }] }),
    click(32),
    navigation('http://shop.test/done?x=1', 'replaceState'),
    navigation('http://shop.test/done?x=2'),
    click(28), // masked button text: no name to find it by
    mutation({
      attributes: [{ id: 22, attributes: { 'data-testid': 'remove-first' } }],
      removes: [{ parentId: 6, id: 9 }],
    }),
    click(22),
    click(999), // blocked or never recorded
    click(20),
  ]);
  exporter.addChunk('replay-2', [
    meta('http://shop.test/about'),
    snapshot(
      page(el(6, 'main', {}, [el(7, 'button', { id: 'back' }, [text(8, 'Back')]), el(9, 'p', {}, [text(10, 'x')])])),
    ),
    click(8),
    navigation('http://shop.test/about#team', 'hashchange'),
  ]);
  exporter.addChunk('replay-3', [meta('http://shop.test/'), snapshot(page())]);
  return exporter;
}

const step = (over: Partial<RecipeStep>): RecipeStep => ({
  ts: 1,
  method: 'GET',
  url: 'http://shop.test/api/items',
  requestHeaders: {},
  status: 200,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: '[]',
  durationMs: 3,
  ...over,
});

const recipes: RecipeStep[] = [
  step({
    responseBody: '[1]',
    responseHeaders: { 'content-type': 'application/json', 'content-length': '3', 'x-session-token': '[REDACTED]' },
  }),
  step({ responseBody: "[1,2,'it''s']" }),
  step({ method: 'POST', url: 'https://api.other.test/orders#frag', status: 201, responseBody: '{"id":7}' }),
  step({
    url: 'http://shop.test/api/down',
    status: 0,
    responseHeaders: {},
    responseBody: null,
    error: 'Failed to fetch',
  }),
  step({ url: 'http://shop.test/api/big', responseBodyTruncated: true }),
  step({
    url: 'http://shop.test/api/image',
    responseHeaders: { 'content-type': 'image/png' },
    responseBody: '[binary 2048 bytes]',
  }),
  step({ method: 'DELETE', url: 'http://shop.test/api/items/1', status: 204, responseHeaders: {}, responseBody: null }),
];

const testBody = (spec: string): string[] => {
  const start = spec.indexOf('test(');
  return spec
    .slice(start)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
};

describe('Playwright export', () => {
  it('replays page loads, clicks, the last value of each field and checked navigations in order', () => {
    const spec = recordedSession().finish({ sessionId: 'abc123', app: 'web-app' }, recipes)!;
    expect(testBody(spec)).toEqual([
      "test('replays session abc123', async ({ page }) => {",
      'await serveRecordedResponses(page);',
      "await page.goto('/cart?step=1');",
      "await page.getByTestId('buy').click();",
      "await page.getByRole('button', { name: 'Add to cart', exact: true }).click();",
      "await page.locator('#email').fill('ada@example.com');",
      "await page.locator('body > main > input:nth-of-type(2)').fill('********'); // masked when recorded",
      "await page.locator('body > main > input:nth-of-type(3)').check();",
      "await page.locator('body > main > select').selectOption('M');",
      '// <input name="qty">: its value was masked when recorded and "********" is not a valid number value',
      "await page.locator('body > main > div > button:nth-of-type(2)').click();",
      "await page.getByRole('button', { name: 'Confirm order', exact: true }).click();",
      "await expect(page).toHaveURL('/done?x=2');",
      "await page.locator('body > main > button:nth-of-type(3)').click();",
      "await page.getByTestId('remove-first').click();",
      '// click skipped: node 999 is not in the recorded DOM',
      "await page.getByRole('link', { name: 'About', exact: true }).click();",
      "await page.waitForURL('/about');",
      "await page.locator('#back').click();",
      "await expect(page).toHaveURL('/about#team');",
      "await page.goto('/');",
      '});',
    ]);
  });

  it('notes a navigation no replayed click caused instead of checking it', () => {
    const exporter = new PlaywrightExport();
    exporter.addChunk('r', [
      meta('http://shop.test/'),
      snapshot(cartPage),
      input(15, 'x'),
      navigation('http://shop.test/?q=x', 'replaceState'),
    ]);
    expect(testBody(exporter.finish({ sessionId: 's', app: 'a' }, [])!)).toContain(
      '// the page moved to /?q=x (replaceState) without a replayed click: not checked',
    );
  });

  it('serves the recipes by method and URL, in recorded order, without credentials or wire headers', () => {
    const spec = recordedSession().finish({ sessionId: 'abc123', app: 'web-app' }, recipes)!;
    expect(spec).toContain(
      [
        'const RECORDED: Record<string, RecordedResponse[]> = {',
        "  'GET /api/items': [",
        "    { status: 200, headers: { 'content-type': 'application/json' }, body: '[1]' },",
        "    { status: 200, headers: { 'content-type': 'application/json' }, body: '[1,2,\\'it\\'\\'s\\']' },",
        '  ],',
        "  'POST https://api.other.test/orders': [",
        "    { status: 201, headers: { 'content-type': 'application/json' }, body: '{\"id\":7}' },",
        '  ],',
        "  'GET /api/down': [",
        "    { status: 0, headers: {}, body: '' },",
        '  ],',
        "  'DELETE /api/items/1': [",
        "    { status: 204, headers: {}, body: '' },",
        '  ],',
        '};',
        '// Recorded but not served (these requests go to the network):',
        '// - GET /api/big: the response body was larger than the recording keeps',
        '// - GET /api/image: the response body is not text, so it was not recorded',
      ].join('\n'),
    );
    expect(spec).toContain(
      "if (request.resourceType() !== 'fetch' && request.resourceType() !== 'xhr') return route.fallback();",
    );
    expect(spec).not.toContain('REDACTED');
  });

  it('runs against the recorded origin, the base_url given, or SVC_REPLAY_BASE_URL, and says where it came from', () => {
    const recorded = recordedSession().finish({ sessionId: 'abc123', app: 'web-app' }, [])!;
    expect(recorded).toContain("const baseURL = process.env.SVC_REPLAY_BASE_URL ?? 'http://shop.test';");
    expect(recorded).toMatch(
      /^\/\/ Playwright test exported by svc from session abc123 of app "web-app", recorded on http:\/\/shop\.test at 2023-/,
    );
    expect(recorded).toContain(
      '// - masked input values are typed as "********": the recording never held the real text;',
    );
    expect(recorded).toContain("import { test, expect, type Page } from '@playwright/test';");
    const moved = recordedSession().finish(
      { sessionId: 'abc123', app: 'web-app', baseUrl: 'http://localhost:4000' },
      [],
    )!;
    expect(moved).toContain("const baseURL = process.env.SVC_REPLAY_BASE_URL ?? 'http://localhost:4000';");
  });

  it('keeps recorded text inside literals and comments whatever it holds', () => {
    const exporter = new PlaywrightExport();
    const nasty = "it's \\ \n */ ${x} \u2028";
    exporter.addChunk('r', [
      meta('http://shop.test/'),
      snapshot(page(el(6, 'button', { 'data-testid': nasty }, [text(7, 'x')]), el(8, 'input', { id: '1st:field' }))),
      click(7),
      input(8, nasty),
    ]);
    const lines = testBody(exporter.finish({ sessionId: 'id\nwith newline', app: 'a' }, [])!);
    expect(lines).toContain("await page.getByTestId('it\\'s \\\\ \\n */ ${x} \\u2028').click();");
    expect(lines).toContain("await page.locator('[id=\"1st:field\"]').fill('it\\'s \\\\ \\n */ ${x} \\u2028');");
  });

  it('names an element by its text at the time of the click', () => {
    const exporter = new PlaywrightExport();
    exporter.addChunk('r', [
      meta('http://shop.test/'),
      snapshot(page(el(6, 'button', {}, [text(7, 'Save')]), el(8, 'button', {}, [text(9, 'Saved')]))),
      mutation({ texts: [{ id: 7, value: 'Save draft' }] }),
      click(7),
      mutation({ texts: [{ id: 9, value: 'Save draft' }] }),
      click(9),
    ]);
    expect(testBody(exporter.finish({ sessionId: 's', app: 'a' }, [])!).slice(3, 5)).toEqual([
      "await page.getByRole('button', { name: 'Save draft', exact: true }).click();",
      "await page.locator('body > button:nth-of-type(2)').click();",
    ]);
  });

  it('exports nothing when no page load was recorded', () => {
    const exporter = new PlaywrightExport();
    exporter.addChunk('r', [click(3)]);
    expect(exporter.finish({ sessionId: 's', app: 'a' }, [])).toBeUndefined();
  });
});

describe('an exported spec', () => {
  it('type-checks under strict TypeScript against @playwright/test', () => {
    expect(specTypeErrors(recordedSession().finish({ sessionId: 'abc123', app: 'web-app' }, recipes)!)).toEqual([]);
  });
});
