import type { z } from 'zod';
import type { LogRecordSchema, MetricPointSchema, RecipeRecordSchema } from '../../../../src/records/schemas';
import type { ReplayGap } from '../../../../src/replay/chunk-order';
import type { SessionItem } from '../sessions/types';

/**
 * The control plane's answers this page reads: the server's schemas (server/src/records/schemas.ts) and types
 * (server/src/replay/), imported as types only, so a renamed field breaks this build.
 */

/** `GET /sessions/{id}` (server/src/sessions/routes.ts): the listing's session with its replays, ordered by start. */
export type SessionDetail = SessionItem & {
  replays: Array<{
    replay_id: string;
    start_time: string;
    end_time: string;
    chunk_count: number;
    event_count: number;
    first_url: string | null;
  }>;
};

/** An rrweb event as stored; `data` is read defensively since the recording's page produced it. */
export interface ReplayEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export type { ReplayGap };

export interface ReplayPage {
  events: ReplayEvent[];
  gaps: ReplayGap[];
  next_cursor: string | null;
}

/** The schema types a record's `attributes` as any JSON; the server always sends an object. */
type WithAttributes<T> = Omit<T, 'attributes'> & { attributes: Record<string, unknown> };

export type LogRow = WithAttributes<z.output<typeof LogRecordSchema>>;
export type RecipeRow = z.output<typeof RecipeRecordSchema>;
export type MetricRow = WithAttributes<z.output<typeof MetricPointSchema>>;

/** Something on the session's timeline: `at` is epoch ms. */
export interface Timed {
  at: number;
}
