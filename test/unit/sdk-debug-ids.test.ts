import { afterEach, describe, expect, it } from 'vitest';
import { debugIds } from '../../src/signals/debug-ids';
import { describeException, exceptionAttributes } from '../../src/signals/exception';

/**
 * Debug IDs of the scripts in an exception's stack, read from the registries the build's injected snippet fills
 * (`globalThis._svcDebugIds`, Sentry's `_sentryDebugIds`: stack of the snippet → the file's debug ID). The stacks below
 * are the shapes browsers give: V8 (`    at f (url:line:column)`), Firefox and Safari (`f@url:line:column`).
 * In Chromium, against the real server: test/e2e/sdk-debug-ids.spec.ts.
 */

type Registry = Record<string, string>;
const scope = globalThis as { _svcDebugIds?: Registry; _sentryDebugIds?: Registry };

const APP = 'https://shop.example.com:8443/assets/index-4f2a.js?v=3';
const VENDOR = 'https://shop.example.com/assets/vendor-9c1d.js';
const APP_ID = '3f1c9a52-7e0b-4d6a-9c3e-2b8f5a1d0e47';
const VENDOR_ID = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';

/** The snippet's own stack: the snippet runs at the end of the file, inside a function called right there. */
const v8SnippetStack = (url: string): string => `Error\n    at ${url}:2:78\n    at ${url}:2:190`;
const firefoxSnippetStack = (url: string): string => `@${url}:2:71\n@${url}:2:190\n`;

afterEach(() => {
  delete scope._svcDebugIds;
  delete scope._sentryDebugIds;
});

describe('debugIds', () => {
  it('maps a V8 registry key to its script URL, port and query included, and finds it in a V8 stack', () => {
    scope._svcDebugIds = { [v8SnippetStack(APP)]: APP_ID };
    const stack = [
      "TypeError: Cannot read properties of undefined (reading 'total')",
      `    at applyCoupon (${APP}:1:1042)`,
      `    at async HTMLButtonElement.onClick (${APP}:1:2210)`,
    ].join('\n');
    expect(debugIds(stack)).toEqual([`${APP_ID} ${APP}`]);
  });

  it('maps Firefox and Safari registry keys and finds them in Firefox and Safari stacks', () => {
    scope._svcDebugIds = {
      [firefoxSnippetStack(VENDOR)]: VENDOR_ID,
      [`@${APP}:2:71\nglobal code@${APP}:2:190`]: APP_ID,
    };
    expect(debugIds(`applyCoupon@${APP}:1:1042\nonClick/<@${VENDOR}:1:553\n`)).toEqual([
      `${VENDOR_ID} ${VENDOR}`,
      `${APP_ID} ${APP}`,
    ]);
    expect(debugIds(`applyCoupon@${APP}:1:1042\nglobal code@${APP}:1:9`)).toEqual([`${APP_ID} ${APP}`]);
  });

  it("reads Sentry's registry too, so files built with Sentry's tools count", () => {
    scope._sentryDebugIds = { [v8SnippetStack(VENDOR)]: VENDOR_ID };
    scope._svcDebugIds = { [v8SnippetStack(APP)]: APP_ID };
    expect(debugIds(`Error: x\n    at f (${APP}:1:1)\n    at g (${VENDOR}:1:2)`)).toEqual([
      `${APP_ID} ${APP}`,
      `${VENDOR_ID} ${VENDOR}`,
    ]);
  });

  it('gives one entry per file of the stack, however many of its frames it has, and none for files not in it', () => {
    const lazy = 'https://shop.example.com/assets/lazy-77aa.js';
    scope._svcDebugIds = {
      [v8SnippetStack(APP)]: APP_ID,
      [v8SnippetStack(VENDOR)]: VENDOR_ID,
      [v8SnippetStack(lazy)]: 'c0ffee00-0000-4000-8000-000000000000',
    };
    const stack = `Error: x\n    at a (${APP}:1:10)\n    at b (${VENDOR}:1:20)\n    at c (${APP}:1:30)\n    at d (${VENDOR}:1:40)`;
    expect(debugIds(stack)).toEqual([`${APP_ID} ${APP}`, `${VENDOR_ID} ${VENDOR}`]);
  });

  it('keeps an @ in the URL path (CDN package URLs) and does not take a longer URL for a registered one', () => {
    const cdn = 'https://cdn.jsdelivr.net/npm/shop-widgets@1.4.0/dist/widgets.min.js';
    scope._svcDebugIds = { [firefoxSnippetStack(cdn)]: VENDOR_ID, [v8SnippetStack(VENDOR)]: APP_ID };
    expect(debugIds(`render@${cdn}:1:300`)).toEqual([`${VENDOR_ID} ${cdn}`]);
    expect(debugIds(`Error: x\n    at f (${VENDOR}?v=2:1:1)\n    at g (${VENDOR}.gz:1:1)`)).toBeUndefined();
  });

  it('gives nothing without a registry, with an empty one, or for keys that name no script', () => {
    const stack = `Error: x\n    at f (${APP}:1:1)`;
    expect(debugIds(stack)).toBeUndefined();
    scope._svcDebugIds = {};
    expect(debugIds(stack)).toBeUndefined();
    scope._svcDebugIds = {
      Error: APP_ID,
      'Error\n    at <anonymous>:1:1': APP_ID,
      'Error\n    at eval (eval at f (native))': APP_ID,
    };
    expect(debugIds(stack)).toBeUndefined();
  });

  it("takes a key's first frame only: code run by eval has no URL and is not credited to the file that ran it", () => {
    scope._svcDebugIds = {
      [`Error\n    at eval (eval at load (${VENDOR}:1:5), <anonymous>:2:78)\n    at load (${VENDOR}:1:5)`]: APP_ID,
      [`@${VENDOR}:1:5 > eval:2:71\nload@${VENDOR}:1:5`]: APP_ID,
    };
    expect(debugIds(`Error: x\n    at f (${VENDOR}:1:9)`)).toBeUndefined();
  });

  it('does bounded work for a huge registry: one key listing per exception, values read only for files in the stack', () => {
    const keys: Registry = {};
    for (let file = 0; file < 50_000; file++)
      keys[v8SnippetStack(`https://shop.example.com/assets/chunk-${file}.js`)] = VENDOR_ID;
    keys[v8SnippetStack(APP)] = APP_ID;
    const reads = { listings: 0, values: 0 };
    scope._svcDebugIds = new Proxy(keys, {
      ownKeys: (target) => (reads.listings++, Reflect.ownKeys(target)),
      get: (target, key) => (reads.values++, Reflect.get(target, key)),
    });
    const stack = `Error: x\n    at f (${APP}:1:1)\n    at g (${APP}:1:2)`;
    for (let capture = 1; capture <= 3; capture++) {
      expect(debugIds(stack)).toEqual([`${APP_ID} ${APP}`]);
      expect(reads).toEqual({ listings: capture, values: capture });
    }
  });
});

describe('svc.exception.debug_ids on exceptions', () => {
  it('carries the files of the error and of its causes', () => {
    scope._svcDebugIds = { [v8SnippetStack(APP)]: APP_ID };
    scope._sentryDebugIds = { [firefoxSnippetStack(VENDOR)]: VENDOR_ID };
    const cause = new Error('coupon service down');
    cause.stack = `fetchCoupon@${VENDOR}:1:553\n`;
    const error = new Error('checkout failed', { cause });
    error.stack = `Error: checkout failed\n    at applyCoupon (${APP}:1:1042)`;
    expect(exceptionAttributes(describeException(error))['svc.exception.debug_ids']).toEqual([
      `${APP_ID} ${APP}`,
      `${VENDOR_ID} ${VENDOR}`,
    ]);
  });

  it('is absent when no frame has a known debug ID, and for thrown values that are not errors', () => {
    scope._svcDebugIds = { [v8SnippetStack(APP)]: APP_ID };
    const error = new Error('elsewhere');
    error.stack = `Error: elsewhere\n    at f (${VENDOR}:1:1)`;
    expect(exceptionAttributes(describeException(error))).not.toHaveProperty(['svc.exception.debug_ids']);
    expect(exceptionAttributes(describeException(`failed at ${APP}:1:1`))).not.toHaveProperty([
      'svc.exception.debug_ids',
    ]);
  });
});
