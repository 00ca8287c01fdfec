import type { Originals } from './core';

/**
 * Captures `fetch` and the console methods before any signal patches them. Captured once per SDK start: if the app
 * or another tool wrapped them earlier, their wrappers are kept (we only skip our own).
 */
export function captureOriginals(): Originals {
  const scope = globalThis;
  const console = scope.console;
  const bind = <K extends keyof Originals['console']>(name: K): Console[K] =>
    typeof console?.[name] === 'function' ? console[name].bind(console) : () => undefined;
  return {
    fetch: typeof scope.fetch === 'function' ? scope.fetch.bind(scope) : undefined,
    console: { debug: bind('debug'), info: bind('info'), warn: bind('warn'), error: bind('error'), log: bind('log') },
  };
}
