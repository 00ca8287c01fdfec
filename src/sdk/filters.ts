import type { BeforeSendItem, Pattern, ResolvedConfig } from '../config/types';
import type { TelemetryItem } from '../pipeline/items';
import { FRAME_URL } from '../signals/debug-ids';
import type { DebugLog } from '../core/core';

/** Scripts of browser extensions: their errors are not the app's, and no app can fix them (Sentry drops them too). */
const EXTENSION_URL = /^(chrome|moz|safari(-web)?)-extension:\/\//;

const matches = (patterns: readonly Pattern[], text: string): boolean =>
  patterns.some((pattern) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)));

/** The URL of the script that threw: the error event's file, else the top frame of the stack. */
function thrownFrom(attributes: TelemetryItem['attributes']): string | undefined {
  const file = attributes['code.file.path'];
  if (typeof file === 'string') return file;
  const stack = attributes['exception.stacktrace'];
  if (typeof stack !== 'string') return undefined;
  for (const line of stack.split('\n')) {
    const url = FRAME_URL.exec(line);
    if (url) return url[1];
  }
  return undefined;
}

/**
 * Decides what leaves the browser: errors matching `ignoreErrors`, thrown by a denied script (`denyUrls`, browser
 * extensions) or by a script outside a non-empty `allowUrls` are dropped; then `beforeSend` sees each error, log record
 * and span and may drop (`null`) or change it. Metrics pass untouched. Returns `undefined` for a dropped item.
 */
export function createItemFilter(
  config: Pick<ResolvedConfig, 'beforeSend' | 'ignoreErrors' | 'denyUrls' | 'allowUrls'>,
  debug: DebugLog,
): (item: TelemetryItem) => TelemetryItem | undefined {
  const { beforeSend, ignoreErrors, denyUrls, allowUrls } = config;

  const unwanted = (item: TelemetryItem): boolean => {
    const { attributes } = item;
    if (item.kind !== 'log' || attributes['exception.type'] === undefined) return false;
    if (matches(ignoreErrors, `${String(attributes['exception.type'])}: ${String(attributes['exception.message'])}`))
      return true;
    const url = thrownFrom(attributes);
    if (url === undefined) return false;
    return EXTENSION_URL.test(url) || matches(denyUrls, url) || (allowUrls.length > 0 && !matches(allowUrls, url));
  };

  const hook = (item: TelemetryItem): TelemetryItem | undefined => {
    if (beforeSend === undefined || item.kind === 'metric') return item;
    const isError = item.kind === 'log' && item.attributes['exception.type'] !== undefined;
    // A copy the hook may change in place; errors are shown as `kind: 'error'` so one test tells them from logs.
    const view = { ...item, attributes: { ...item.attributes }, kind: isError ? 'error' : item.kind } as BeforeSendItem;
    let result: BeforeSendItem | null;
    try {
      result = beforeSend(view);
    } catch (error) {
      debug.error('beforeSend threw; the item is sent unchanged', error);
      return item;
    }
    if (result === null) return undefined;
    if (typeof result !== 'object' || result.kind !== view.kind) {
      debug.warn('beforeSend must return the item (changed or not) or null; the item is sent unchanged.');
      return item;
    }
    return (result.kind === 'error' ? { ...result, kind: 'log' } : result) as TelemetryItem;
  };

  return (item) => (unwanted(item) ? undefined : hook(item));
}
