import type { InferResponseType } from 'hono/client';
import type { sessionsClient } from '../../api/typed';

/** The sessions listing's answers as the server's schemas declare them, through the typed client. */
export type SessionItem = InferResponseType<typeof sessionsClient.index.$get, 200>['data'][number];
export type SessionFacets = InferResponseType<typeof sessionsClient.facets.$get, 200>;
