/**
 * The readable-error check every example's production build goes through (issue 15): its "Apply the coupons" button
 * throws from `discountFor`, a function nested in `applyCoupons` in a module of its own (`coupons.ts`/`.js`), and the
 * issue the reference server stores for it must name that source file, the line and column of the `throw`, and the
 * function, and quote the line, all read from the source map the build uploaded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import type { IssueDetail } from '../../support/issues';
import { controlGet, type TestServer } from '../../support/svc-server';

/** What the button throws. */
export const COUPON_ERROR = 'Coupon EXPIRED5 is not valid';

/** The fields of `GET /control-plane/issues/{id}` these checks read (the listing's rows lack the stack). */
export type Issue = IssueDetail;

/** An example's coupons module: its path in the example, and the name its source map gives it. */
export interface CouponsModule {
  path: string;
  mapName: string;
}

/** Clicks the coupon button on the app's page and waits until the browser reports the uncaught error. */
export async function throwFromSecondModule(page: Page, origin: string): Promise<void> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(origin);
  await expect(page.getByRole('heading', { name: /^Shop/ })).toBeVisible();
  // The footer shows the session id once the SDK runs: the error is then the SDK's to report.
  await expect(page.getByTestId('session')).toHaveText(/\S/);
  await page.getByRole('button', { name: 'Apply the coupons' }).click();
  await expect.poll(() => pageErrors, { message: 'the coupon error reached the page' }).toContain(COUPON_ERROR);
}

/** Every issue of the project (all pages of `GET /control-plane/issues`). */
async function listIssues(ingest: TestServer): Promise<Issue[]> {
  const issues: Issue[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const res = await controlGet<{ data: Issue[]; next_cursor: string | null }>(ingest, `/issues${query}`);
    expect(res.status, `GET /control-plane/issues: ${JSON.stringify(res.body)}`).toBe(200);
    issues.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return issues;
}

export async function getIssue(ingest: TestServer, id: string): Promise<Issue> {
  const res = await controlGet<Issue>(ingest, `/issues/${encodeURIComponent(id)}`);
  expect(res.status, `GET /control-plane/issues/${id}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/**
 * Waits until the coupon error's issue satisfies `done` and returns it. The reference server's detector groups errors
 * on its own schedule (every 10 s), so the listing is polled: the only place the answer shows.
 */
export async function waitForCouponIssue(ingest: TestServer, what: string, done: (issue: Issue) => boolean): Promise<Issue> {
  let found: Issue[] = [];
  await expect
    .poll(
      async () => {
        found = (await listIssues(ingest)).filter((issue) => issue.message === COUPON_ERROR);
        return found.some(done);
      },
      { message: what, timeout: 30_000, intervals: [500, 1000] },
    )
    .toBe(true)
    .catch((error: Error) => {
      throw new Error(`${error.message}\nIssues of the coupon error: ${JSON.stringify(found, null, 1)}`);
    });
  expect(found, 'one issue for the coupon error').toHaveLength(1);
  return getIssue(ingest, found[0]!.id);
}

/**
 * Where the `throw` of `discountFor` is in an example's coupons module, 1-based as the issue API gives it. The stack
 * points where the error was constructed: at `new Error(…)`, or at `Error` when the minifier dropped the `new` (the two
 * are the same call), which the map then names.
 */
function throwSite(sourcePath: string): { line: number; columns: number[]; text: string } {
  const lines = readFileSync(sourcePath, 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes('throw new Error(`Coupon'));
  expect(index, `the throw in ${sourcePath}`).toBeGreaterThanOrEqual(0);
  const text = lines[index]!;
  const construction = text.indexOf('new Error') + 1;
  return { line: index + 1, columns: [construction, construction + 'new '.length], text };
}

/** Asserts that the issue's top frame reads at the original source of the example's coupons module. */
export function expectReadableTopFrame(issue: Issue, exampleDir: string, coupons: CouponsModule): void {
  expect(issue).toMatchObject({ type: 'Error', message: COUPON_ERROR });
  const site = throwSite(join(exampleDir, coupons.path));
  const top = issue.stack.frames[0];
  const stack = `stack: ${JSON.stringify(issue.stack, null, 1)}`;
  expect(top, stack).toBeDefined();
  expect(top!.in_app, stack).toBe(true);
  expect(top!.debug_id, `the SDK sent the debug ID of ${top!.url}; ${stack}`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(top!.original, stack).toMatchObject({ file: coupons.mapName, line: site.line, function: 'discountFor' });
  expect(site.columns, `the column of the error's construction; ${stack}`).toContain(top!.original!.column);
  const context = top!.original!.context;
  expect(context, `source context; ${stack}`).not.toBeNull();
  expect(context!.lines[site.line - context!.start_line], 'the quoted line is the throw').toBe(site.text);
}
