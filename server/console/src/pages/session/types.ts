import type { InferResponseType } from 'hono/client';
import type { recordsClient, sessionsClient } from '../../api/typed';

/** The control plane's answers this page reads, as the server's schemas declare them, through the typed clients. */

/** `GET /sessions/{id}`: the listing's session with its replays, ordered by start. */
export type SessionDetail = InferResponseType<(typeof sessionsClient)[':id']['$get'], 200>;
type ReplayAnswer = InferResponseType<(typeof sessionsClient)[':id']['replay']['$get'], 200>;

/** An rrweb event as stored; `data` is read defensively since the recording's page produced it. */
export interface ReplayEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export type ReplayGap = ReplayAnswer['gaps'][number];

/** The schema types a record's `attributes` as any JSON; the server always sends an object. */
type WithAttributes<T> = Omit<T, 'attributes'> & { attributes: Record<string, unknown> };

export type LogRow = WithAttributes<InferResponseType<typeof recordsClient.logs.$get, 200>['data'][number]>;
export type RecipeRow = InferResponseType<(typeof sessionsClient)[':id']['recipes']['$get'], 200>['data'][number];
export type MetricRow = WithAttributes<InferResponseType<typeof recordsClient.metrics.$get, 200>['data'][number]>;

/** Something on the session's timeline: `at` is epoch ms. */
export interface Timed {
  at: number;
}
