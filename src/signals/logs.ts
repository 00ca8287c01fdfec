import type { SdkCore } from '../core/core';
import { startedTracings } from '../core/started-tracing';
import type { Logger } from '../core/integration';
import { randomHexId } from '../session/ids';
import type { Attributes, LogLevel } from '../core/types';
import { nowMs } from './clock';
import { readCallContext } from './context';
import { isErrorLike } from './error-info';
import { describeException, exceptionAttributes, exceptionBody } from './exception';
import { runGuarded } from './internal';
import { describeArgument, renderValue, truncate } from './render';

/** Longest log body; longer bodies are cut and end with `…`. */
export const MAX_BODY_LENGTH = 16384;

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['debug', 'info', 'warn', 'error', 'fatal']);

/** Creates the logger of one SDK instance. Its methods never throw. */
export function createLogger(core: SdkCore): Logger {
  const captured = new WeakSet<object>();

  const record = (
    level: LogLevel,
    body: string,
    context: unknown,
    method: string,
    extra: Attributes | undefined,
  ): void => {
    const { sessionId, attributes } = readCallContext(core, context, method);
    // Only with the SDK's tracing started (an integration that traces) is there a span to put the record into.
    const tracing = startedTracings.get(core.teardown);
    const spanContext = tracing && tracing.activeSpan();
    core.enqueue({
      kind: 'log',
      timeMs: nowMs(),
      level,
      body: truncate(body, MAX_BODY_LENGTH),
      sessionId,
      // The record's identity (OpenTelemetry's log.record.uid): ingest stores a retried record once.
      attributes: { ...attributes, ...extra, 'session.id': sessionId, 'log.record.uid': randomHexId() },
      traceId: spanContext && spanContext.traceId,
      spanId: spanContext && spanContext.spanId,
    });
  };

  return {
    log(level, message, context, extraAttributes) {
      runGuarded(core, 'log()', () => {
        let checkedLevel: LogLevel = 'info';
        if (typeof level === 'string' && LEVELS.has(level)) checkedLevel = level;
        else
          core.debug.warn(
            `log(): unknown level ${describeArgument(level)}; use ${[...LEVELS].join(', ')}. Logged as info.`,
          );
        const body = typeof message === 'string' ? message : renderValue(message, MAX_BODY_LENGTH);
        record(checkedLevel, body, context, 'log()', extraAttributes);
      });
    },
    captureException(error, context, extraAttributes) {
      runGuarded(core, 'captureException()', () => {
        if (isErrorLike(error)) {
          if (captured.has(error)) return;
          captured.add(error);
        }
        const info = describeException(error);
        // The page it happened on (path only: a query can hold personal data), which the breakdown counts by route.
        const page: Attributes = typeof location === 'undefined' ? {} : { 'url.path': location.pathname };
        record('error', exceptionBody(info), context, 'captureException()', {
          ...page,
          ...extraAttributes,
          ...exceptionAttributes(info),
        });
      });
    },
  };
}
