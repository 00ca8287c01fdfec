import type { IntegrationCore } from '../core/integration';
import { patchMethod } from '../core/patch';
import type { Attributes, LogLevel } from '../core/types';
import { formatConsoleArguments } from './console-format';
import { isErrorLike } from './error-info';
import { describeException, exceptionAttributes } from './exception';
import { isInternal, runGuarded } from './internal';
import { MAX_BODY_LENGTH } from './logs';

/** The console methods forwarded as logs (SPEC 2.9), each at the level of the same name. */
const CAPTURED_CONSOLE_METHODS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];

/** `log.source` of forwarded console output. */
const CONSOLE_SOURCE = 'console';

function consoleAttributes(args: readonly unknown[], issue: boolean): Attributes {
  const attributes: Attributes = { 'log.source': CONSOLE_SOURCE };
  // Console output is a log and a breadcrumb; an issue only when the app asks (`issuesFrom`).
  if (issue) attributes['svc.issue'] = true;
  // `console.error('save failed', error)`: the error is searchable like a captured exception.
  const error = args.find(isErrorLike);
  return error === undefined ? attributes : { ...attributes, ...exceptionAttributes(describeException(error)) };
}

/**
 * Forwards `console.debug/info/warn/error` as logs at the matching level, with the text the console shows (see
 * {@link formatConsoleArguments}) and `log.source: console`. The console itself is called as before, with the same
 * arguments and `this`, and its return value and exceptions reach the caller unchanged.
 *
 * Output produced while the SDK is recording (by the SDK or by anything it calls) is not forwarded again, and the
 * SDK's own diagnostics go through `core.originals.console`, which was captured before this patch. Restored at
 * shutdown (unless something patched the console after us: then our wrapper stays and only passes calls through).
 */
export function startConsole(core: IntegrationCore): void {
  const target = globalThis.console;
  if (typeof target !== 'object' || target === null) return;
  for (const level of CAPTURED_CONSOLE_METHODS) {
    patchMethod(
      core.teardown,
      target,
      level,
      (original) =>
        function (this: unknown, ...args: unknown[]): void {
          if (!isInternal()) {
            runGuarded(core, `console.${level} capture`, () => {
              const issue = level === 'error' && core.config.issuesFrom.includes('console');
              core.logger.log(
                level,
                formatConsoleArguments(args, MAX_BODY_LENGTH),
                undefined,
                consoleAttributes(args, issue),
              );
            });
          }
          return original.apply(this, args);
        },
    );
  }
}
