import type { InferResponseType } from 'hono/client';
import type { tracesClient } from '../../api/typed';
import type { SpanJson } from '../../ui/waterfall';

/**
 * The trace search's item as the server's schema declares it (server/src/traces/schemas.ts), through the typed
 * client: a renamed field breaks this build.
 */
export type TraceSummary = InferResponseType<ReturnType<typeof tracesClient>['index']['$get'], 200>['data'][number];

export interface Trace {
  trace_id: string;
  /** What started it, in words (`click on Pay`), from its root span. */
  label: string;
  /** Failed spans, spans with an exception event and exception log records of the trace. */
  error_count: number;
  spans: SpanJson[];
  truncated: boolean;
}
