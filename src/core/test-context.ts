import type { ResolvedConfig } from '../config/types';
import type { Attributes } from './types';

/**
 * The Playwright test a page runs in, as @svc/playwright's fixture hands it over: `globalThis.__SVC_TEST__`, set by an
 * init script before any of the page's code runs (docs/sdk.md "Under @svc/playwright").
 */

/** Longest text kept: the server keeps a session's test title and file up to this length. */
const MAX_CHARS = 1024;
const MAX_TITLE_PARTS = 20;

/** Keys of `__SVC_TEST__` that become `test.<key>` attributes: six strings, then three whole numbers. */
const KEYS = ['runId', 'testId', 'file', 'project', 'commit', 'branch', 'line', 'retry', 'worker'];
/** The attribute names of the first keys that are not named after their key: `test.run.id`, `test.id`. */
const NAMES = ['run.id', 'id'];

const isText = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= MAX_CHARS;

/**
 * The `test.*` resource attributes of the page's test, or `undefined` outside a test. `__SVC_TEST__` comes from the
 * page's world, so nothing about it is trusted: it counts only when it has a string `runId` and `testId`; values of
 * the wrong type or too long are left out (cutting an id would name another test); and a value that throws when read
 * (a getter, a Proxy) makes the whole of it count as absent rather than reach the app.
 */
export function readTestContext(): Attributes | undefined {
  try {
    const given = (globalThis as { __SVC_TEST__?: unknown }).__SVC_TEST__ as Record<string, unknown> | undefined;
    if (!given || !isText(given.runId) || !isText(given.testId)) return undefined;
    const attributes: Attributes = {};
    KEYS.forEach((key, i) => {
      const value = given[key];
      if (i < 6 ? isText(value) : Number.isSafeInteger(value) && (value as number) >= 0) {
        attributes[`test.${NAMES[i] || key}`] = value as string | number;
      }
    });
    const path = given.titlePath;
    const title = Array.isArray(path) ? path.slice(0, MAX_TITLE_PARTS).filter(isText).join(' > ') : given.title;
    if (isText(title)) attributes['test.title'] = title;
    return attributes;
  } catch {
    return undefined;
  }
}

/**
 * The configuration of a page under test: environment `test` unless the app set one, and every session sampled with
 * its replay recorded in full (when replay is enabled), so that each test's session is there to look at.
 */
export const underTest = (config: ResolvedConfig): ResolvedConfig => ({
  ...config,
  // `||`, not `??`: the same here (a set env is never empty), and it stays short in the ES2018 build.
  env: config.env || 'test',
  sampleRate: 1,
  replay: { ...config.replay, sampleRate: 1 },
});

/** Tells one test attempt's stored session from another's (a reused storageState carries it from test to test). */
export const testOwner = (test: Attributes): string =>
  String([test['test.run.id'], test['test.id'], test['test.retry']]);
