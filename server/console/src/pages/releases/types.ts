import type { InferResponseType } from 'hono/client';
import type { releasesClient } from '../../api/typed';

/** The answers of `/control-plane/releases` (server/src/releases/schemas.ts), through the typed client. */
export type Release = InferResponseType<typeof releasesClient.index.$get, 200>['data'][number];
export type Comparison = InferResponseType<typeof releasesClient.compare.$get, 200>;
export type ReleaseFigures = Comparison['current'];
