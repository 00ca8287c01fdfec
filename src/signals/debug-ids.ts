/**
 * Debug IDs of the scripts in an exception's stack (docs/sdk-signals.md). A build that injects debug IDs (our
 * `@svc/build` or Sentry's tools) appends to every file a snippet that records `new Error().stack` against the file's
 * id in a registry on `globalThis`; the script URL of that stack's first frame is the file's URL. Registry keys are
 * parsed only when an exception is captured, each once, so nothing runs at start-up and a large registry costs one map
 * lookup per key and exception.
 */

type Registry = Record<string, string>;

/**
 * The script URL of a stack frame, V8 (`at f (https://a.io:8080/x.js?v=1:3:14)`, `at https://…`) or Firefox and
 * Safari (`f@https://…:3:14`): the line's last `url:line:column`, the URL starting at its scheme, so an `@` in its path
 * (`/npm/pkg@1.0/x.js`) stays in it. Code run by `eval` has no URL of its own and gets none.
 */
export const FRAME_URL = /(\w+:\/\/[^\s()]+):\d+:\d+\)?$/;

/** All but a registry key's first frame: V8's `Error` head line, and every line after the first frame. */
const NOT_FIRST_FRAME = /^Error\n|\n.*/gs;

/** Registry key → the script URL of its first frame (`''` when it names none). */
const keyUrls = new Map<string, string>();

/**
 * `"<debug id> <script URL>"` for each distinct script URL in `stack` (any frame, causes included) that a registry
 * knows; `undefined` when there is none, so the attribute is left out.
 */
export function debugIds(stack: string): string[] | undefined {
  const entries = new Set<string>();
  const scope = globalThis as { _svcDebugIds?: Registry; _sentryDebugIds?: Registry };
  for (const registry of [scope._svcDebugIds, scope._sentryDebugIds]) {
    for (const key in registry) {
      let url = keyUrls.get(key);
      if (url === undefined)
        keyUrls.set(key, (url = (FRAME_URL.exec(key.replace(NOT_FIRST_FRAME, '')) || [])[1] || ''));
      // A frame shows its URL followed by `:line`, so `url:` finds it without parsing the exception's own frames.
      if (url && stack.includes(`${url}:`)) entries.add(`${registry[key]} ${url}`);
    }
  }
  return entries.size ? [...entries] : undefined;
}
