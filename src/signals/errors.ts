import type { IntegrationCore } from '../core/integration';
import type { Attributes } from '../core/types';
import { isInternal } from './internal';

/** Value of the `log.source` attribute of each automatic error capture. */
const ERROR_SOURCES = { uncaught: 'onerror', rejection: 'unhandledrejection' } as const;

/** Where an uncaught error was thrown, with OpenTelemetry's `code.*` attribute names; unknown parts are left out. */
function locationAttributes(event: ErrorEvent): Attributes {
  const attributes: Attributes = { 'log.source': ERROR_SOURCES.uncaught };
  if (typeof event.filename === 'string' && event.filename !== '') attributes['code.file.path'] = event.filename;
  if (event.lineno > 0) attributes['code.line.number'] = event.lineno;
  if (event.colno > 0) attributes['code.column.number'] = event.colno;
  return attributes;
}

/**
 * Logs uncaught errors (`window` `error` events) and unhandled promise rejections at `error` level through
 * `core.logger.captureException`, with `log.source` saying which, and for uncaught errors the file, line and column.
 *
 * Only `ErrorEvent`s count: a failed `<img>` or `<script>` load dispatches a plain `Event`, which is not an error of
 * the app's code. Errors raised while the SDK itself is recording are skipped, and an error the app already passed
 * to `captureException` is not recorded twice.
 */
export function startErrors(core: IntegrationCore): void {
  const { logger } = core;
  if (typeof window === 'undefined' || typeof window.addEventListener !== 'function') return;

  core.teardown.listen(window, 'error', (event) => {
    if (typeof ErrorEvent === 'undefined' || !(event instanceof ErrorEvent) || isInternal()) return;
    // `error` is null for "Script error." from cross-origin scripts without CORS: the message is all there is.
    const { error } = event;
    const thrown: unknown = error ?? event.message;
    logger.captureException(thrown, undefined, locationAttributes(event));
  });

  core.teardown.listen(window, 'unhandledrejection', (event) => {
    if (isInternal()) return;
    logger.captureException((event as PromiseRejectionEvent).reason, undefined, {
      'log.source': ERROR_SOURCES.rejection,
    });
  });
}
