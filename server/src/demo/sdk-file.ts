import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** How to get the file the demo page loads, for error messages. */
const HOW_TO_BUILD = 'build it with `npm run build:sdk` (it writes dist/cdn/svc.min.js)';

/**
 * The absolute path of the SDK script-tag bundle the demo page serves, or the reason it cannot be used. Checked once at
 * start so that a wrong path fails `svc-server start` with a clear message instead of a page that silently lacks the
 * SDK.
 */
export function checkDemoSdk(path: string): { path: string } | { problem: string } {
  const absolute = resolve(path);
  try {
    if (statSync(absolute).isFile()) return { path: absolute };
    return { problem: `${absolute} is not a file; ${HOW_TO_BUILD}` };
  } catch {
    return { problem: `no file at ${absolute}; ${HOW_TO_BUILD}` };
  }
}
