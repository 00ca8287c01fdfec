import { isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api';
import type { SdkCore } from '../sdk/core';
import { randomHexId } from '../session/ids';
import type { Attributes, CallContext, LogLevel } from '../sdk/types';
import { nowMs } from './clock';
import { readCallContext } from './context';
import { isErrorLike } from './error-info';
import { describeException, exceptionAttributes, exceptionBody } from './exception';
import { runGuarded } from './internal';
import { describeArgument, renderValue, truncate } from './render';

/** Longest log body; longer bodies are cut and end with `…`. */
export const MAX_BODY_LENGTH = 16384;

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['debug', 'info', 'warn', 'error', 'fatal']);

/** Structured logs of the SDK object, also used by the automatic signals (console, errors). */
export interface Logger {
  /**
   * One log record at `level` (an unknown level is logged as `info` with a debug warning). `message` is used as is
   * when it is a string and rendered as text otherwise. `extraAttributes` come from the SDK's own signals and win
   * over `context.attrs`; `session.id` always wins.
   */
  log(level: LogLevel, message: unknown, context?: CallContext, extraAttributes?: Attributes): void;
  /**
   * Logs a thrown value at `error`: body `Name: message`, attributes `exception.type`, `exception.message` and
   * `exception.stacktrace`. An error object is recorded once: capturing it again (the app and then a global handler,
   * or an error boundary and then `window.onerror`) records nothing.
   */
  captureException(error: unknown, context?: CallContext, extraAttributes?: Attributes): void;
}

/** The active OpenTelemetry span, if any: its ids put the record into the trace. */
function activeSpanContext(): SpanContext | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

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
    const spanContext = activeSpanContext();
    core.enqueue({
      kind: 'log',
      timeMs: nowMs(),
      level,
      body: truncate(body, MAX_BODY_LENGTH),
      sessionId,
      // The record's identity (OpenTelemetry's log.record.uid): ingest stores a retried record once.
      attributes: { ...attributes, ...extra, 'session.id': sessionId, 'log.record.uid': randomHexId() },
      traceId: spanContext?.traceId,
      spanId: spanContext?.spanId,
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
