import { MASK, REDACTED } from '../../../../wire/replay';
import type { Step } from './actions';
import type { RecipeRouting, RecordedResponse } from './recipe-routing';
import type { Locator } from './selector';
import { commentText, quote } from './typescript-source';

/** Everything the spec file is written from. */
export interface SpecSource {
  sessionId: string;
  app: string;
  /** Origin of the recorded app; `baseUrl` replaces it when the test runs. */
  origin: string;
  /** The test's default base URL (SVC_REPLAY_BASE_URL overrides it at run time). */
  baseUrl: string;
  /** Time of the first recorded event, epoch ms. */
  recordedAt: number | undefined;
  steps: readonly Step[];
  routing: RecipeRouting;
  /** The error a reproduction test (server/src/ai/reproduction.ts) asserts does not happen. */
  reproduces?: ReproducedError;
}

/** An issue's error as a reproduction test recognises it among the page's uncaught errors. */
export interface ReproducedError {
  issueId: string;
  /** The error's name, `TypeError`. */
  type: string;
  /** Its message as people read it, for the test's name. */
  headline: string;
  /** Regular expression source matching every message of the issue (its numbers and quoted values vary). */
  messagePattern: string;
  /** How long after its last step the test waits for the error before it passes. */
  waitMs: number;
}

/** The limits every exported spec states in its header (docs/replay-export.md explains each). */
const LIMITS = [
  `masked input values are typed as "${MASK}": the recording never held the real text;`,
  'elements blocked from the recording (ob-block) cannot be clicked, masked text cannot name an element;',
  'timing is not reproduced: each step waits for its element or URL, not for the recorded delay;',
  'requests are matched by method, path and query parameter names, not values or body; responses not kept whole go to the network;',
  'URL values masked when they were recorded stay masked in the addresses the test visits;',
  'not replayed: keys pressed outside fields, hover, scrolling, drag and drop, file uploads, iframes, canvas, WebSocket.',
];

/**
 * A reproduction test runs with the `@svc/playwright` fixture, so that its runs report to the issue; a plain export
 * (the replay's "Export as Playwright test") needs nothing but Playwright.
 */
const FIXTURE_IMPORTS = [
  "import { test, expect } from '@svc/playwright';",
  "import type { Page } from '@playwright/test';",
];

/** The runnable Playwright spec, TypeScript, one statement per line. */
export function emitSpec(source: SpecSource): string {
  const { sessionId, app, origin, baseUrl, recordedAt } = source;
  const when = recordedAt === undefined ? '' : ` at ${new Date(recordedAt).toISOString()}`;
  const { reproduces } = source;
  return [
    `// Playwright test exported by svc from session ${commentText(sessionId)} of app "${commentText(app)}", recorded on ${commentText(origin)}${when}.`,
    ...(reproduces
      ? reproductionHeader(reproduces)
      : [
          `// Source: GET /control-plane/sessions/${encodeURIComponent(sessionId)}/playwright (docs/replay-export.md).`,
        ]),
    `// Run it against the app: SVC_REPLAY_BASE_URL=${commentText(origin)} npx playwright test <this file>`,
    '//',
    "// The page's fetch and XHR requests are answered with the responses recorded in the session, matched by method, path",
    '// and the names of the query parameters, never their values (several recordings of one request in recorded order, the',
    '// last one repeating); other requests go to the network.',
    '// Limits of a test made from a recording:',
    ...LIMITS.map((limit) => `// - ${limit}`),
    '',
    ...(reproduces ? FIXTURE_IMPORTS : ["import { test, expect, type Page } from '@playwright/test';"]),
    '',
    '/** Where the app under test runs: SVC_REPLAY_BASE_URL, else where it was recorded. */',
    `const baseURL = process.env.SVC_REPLAY_BASE_URL ?? ${quote(baseUrl)};`,
    '',
    'test.use({ baseURL });',
    '',
    ...recordedResponses(source.routing),
    '',
    ...SERVE_RECORDED,
    '',
    ...(reproduces ? reproductionTest(reproduces, source.steps) : replayTest(sessionId, source.steps)),
    '',
  ].join('\n');
}

function replayTest(sessionId: string, steps: readonly Step[]): string[] {
  return [
    `test(${quote(`replays session ${sessionId}`)}, async ({ page }) => {`,
    '  await serveRecordedResponses(page);',
    ...steps.map((step) => `  ${statement(step)}`),
    '});',
  ];
}

function reproductionHeader(error: ReproducedError): string[] {
  return [
    `// Reproduction test of issue ${commentText(error.issueId)}: the user's steps up to the error, then it fails if the page throws`,
    `// ${commentText(error.headline)} again (docs/ai-fixes.md, "The reproduction test"). It fails before the fix, passes after.`,
    "// It runs with @svc/playwright's fixture and is annotated svc-issue: run through its reporter (docs/playwright.md), each",
    '// run of it is listed on the issue, and the errors it catches are counted there as test traffic, never as production.',
  ];
}

/** The steps, then a wait for the issue's error: the test fails as soon as the page throws it, passes once none came. */
function reproductionTest(error: ReproducedError, steps: readonly Step[]): string[] {
  return [
    `/** The error of issue ${commentText(error.issueId)}: its name, and its message as the issue groups it. */`,
    `const ISSUE_ERROR = { name: ${quote(error.type)}, message: new RegExp(${quote(error.messagePattern)}) };`,
    '/** How long after the last step the error had come when it was recorded, plus a margin. */',
    `const ERROR_WAIT_MS = ${error.waitMs};`,
    '',
    `test(${quote(`issue ${error.issueId}: ${error.headline} does not happen`)}, async ({ page }) => {`,
    '  // The reporter links each result of this test to the issue (its reproductions).',
    `  test.info().annotations.push({ type: 'svc-issue', description: ${quote(error.issueId)} });`,
    '  const issueError = new Promise<Error>((resolve) => {',
    "    page.on('pageerror', (error) => {",
    '      if (error.name === ISSUE_ERROR.name && ISSUE_ERROR.message.test(error.message)) resolve(error);',
    '    });',
    '  });',
    '  await serveRecordedResponses(page);',
    ...steps.map((step) => `  ${statement(step)}`),
    '  // Something that must not happen has no event to wait for: the test waits as long as the error took to come.',
    '  const thrown = await Promise.race([issueError, page.waitForTimeout(ERROR_WAIT_MS).then(() => undefined)]);',
    "  expect(thrown && `${thrown.name}: ${thrown.message}`, 'the error of the issue').toBeUndefined();",
    '});',
  ];
}

function recordedResponses(routing: RecipeRouting): string[] {
  const lines = [
    'interface RecordedResponse {',
    '  status: number;',
    '  headers: Record<string, string>;',
    '  body: string;',
    '}',
    '',
    '/** Responses recorded in the session by method, path and sorted query parameter names (`GET /api/search?page&q`):',
    " * the path on the app's origin, origin and path elsewhere. */",
  ];
  if (routing.responses.size === 0) lines.push('const RECORDED: Record<string, RecordedResponse[]> = {};');
  else {
    lines.push('const RECORDED: Record<string, RecordedResponse[]> = {');
    for (const [key, responses] of routing.responses) {
      lines.push(`  ${quote(key)}: [`, ...responses.map((r) => `    ${responseLiteral(r)},`), '  ],');
    }
    lines.push('};');
  }
  if (routing.skipped.length > 0) {
    lines.push(
      '// Recorded but not served (these requests go to the network):',
      ...routing.skipped.map((s) => `// - ${commentText(s)}`),
    );
  }
  return lines;
}

function responseLiteral(r: RecordedResponse): string {
  const entries = Object.entries(r.headers).map(([name, value]) => `${quote(name)}: ${quote(value)}`);
  const headers = entries.length > 0 ? `{ ${entries.join(', ')} }` : '{}';
  return `{ status: ${r.status}, headers: ${headers}, body: ${quote(r.body)} }`;
}

/** The request handler every spec carries: the same for every session, so it is plain text. */
const SERVE_RECORDED = [
  "/** Answers the page's fetch and XHR requests from RECORDED, in recorded order; anything else goes to the network. */",
  'async function serveRecordedResponses(page: Page): Promise<void> {',
  '  const appOrigin = new URL(baseURL).origin;',
  '  const served = new Map<string, number>();',
  "  await page.route('**/*', async (route) => {",
  '    const request = route.request();',
  "    if (request.resourceType() !== 'fetch' && request.resourceType() !== 'xhr') return route.fallback();",
  '    const url = new URL(request.url());',
  '    const sameOrigin = url.origin === appOrigin;',
  '    const names = [...new Set(url.searchParams.keys())].sort();',
  "    const query = names.length > 0 ? `?${names.join('&')}` : '';",
  '    const key = `${request.method()} ${sameOrigin ? url.pathname : url.origin + url.pathname}${query}`;',
  '    const recorded = RECORDED[key];',
  '    if (recorded === undefined) return route.fallback();',
  '    const count = served.get(key) ?? 0;',
  '    served.set(key, count + 1);',
  '    // The last recording of a request answers every later one.',
  '    const response = recorded[Math.min(count, recorded.length - 1)]!;',
  "    if (response.status === 0) return route.abort('failed');",
  '    // A recorded cross-origin answer was readable by the page; a fulfilled one must say so to the browser.',
  "    const cors = { 'access-control-allow-origin': appOrigin, 'access-control-allow-credentials': 'true' };",
  '    const headers = sameOrigin ? response.headers : { ...response.headers, ...cors };',
  '    return route.fulfill({ status: response.status, headers, body: response.body });',
  '  });',
  '}',
];

function locator(l: Locator): string {
  if (l.by === 'testId') return `page.getByTestId(${quote(l.value)})`;
  if (l.by === 'css') return `page.locator(${quote(l.value)})`;
  return `page.getByRole(${quote(l.role)}, { name: ${quote(l.name)}, exact: true })`;
}

/**
 * The check of a page address recorded with values redacted (docs/ingest.md, "Secrets in URLs"): the page's real
 * address holds other values, so its path and the names of its query parameters are compared instead.
 */
function addressShape(url: string): string {
  const recorded = new URL(url, 'http://recorded.invalid');
  const names = [...new Set(recorded.searchParams.keys())].sort().join('&');
  return `(url) => url.pathname === ${quote(recorded.pathname)} && [...new Set(url.searchParams.keys())].sort().join('&') === ${quote(names)}`;
}

/** `waitForURL` takes a glob: a URL with glob characters is compared whole instead. */
const waitForUrl = (url: string): string =>
  url.includes(REDACTED)
    ? `await page.waitForURL(${addressShape(url)});`
    : /[*{}\\]/.test(url)
      ? `await page.waitForURL((url) => url.href === new URL(${quote(url)}, baseURL).href);`
      : `await page.waitForURL(${quote(url)});`;

const expectUrl = (url: string): string =>
  `await expect(page).toHaveURL(${url.includes(REDACTED) ? addressShape(url) : quote(url)});`;

function statement(step: Step): string {
  switch (step.kind) {
    case 'goto':
      return `await page.goto(${quote(step.url)});`;
    case 'waitForURL':
      return waitForUrl(step.url);
    case 'expectURL':
      return expectUrl(step.url);
    case 'click':
      return `await ${locator(step.locator)}.click();`;
    case 'fill':
      return `await ${locator(step.locator)}.fill(${quote(step.value)});${step.value === MASK ? ' // masked when recorded' : ''}`;
    case 'selectOption':
      return `await ${locator(step.locator)}.selectOption(${quote(step.value)});`;
    case 'check':
      return `await ${locator(step.locator)}.${step.checked ? 'check' : 'uncheck'}();`;
    case 'note':
      return `// ${commentText(step.text)}`;
  }
}
