import type { InferResponseType } from 'hono/client';
import type { tracesClient } from '../../api/typed';

/**
 * The trace search's item as the server's schema declares it (server/src/traces/schemas.ts), through the typed
 * client: a renamed field breaks this build.
 */
export type TraceSummary = InferResponseType<typeof tracesClient.index.$get, 200>['data'][number];
