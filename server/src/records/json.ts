import type { Selectable } from 'kysely';
import type { RecipeStep } from '../../../wire/replay';
import type { Database, TelemetryTable } from '../db/schema';
import { storedEvents } from '../replay/stored-events';
import { iso } from '../shared/time';

/** A stored record of one telemetry table with its app's name, as the listings read it. */
export type Row<T extends TelemetryTable> = Selectable<Database[T]> & { app: string };

const parse = (json: string): unknown => JSON.parse(json);

const common = (r: Row<TelemetryTable>) => ({
  id: r.id,
  app: r.app,
  session_id: r.session_id,
  received_at: iso(r.received_ms),
});

/** A stored span as the API returns it (the span listing and the trace detail). */
export const spanJson = (r: Row<'spans'>) => ({
  ...common(r),
  trace_id: r.trace_id,
  span_id: r.span_id,
  parent_span_id: r.parent_span_id,
  name: r.name,
  kind: r.kind,
  start_time_unix_nano: r.start_ns,
  end_time_unix_nano: r.end_ns,
  time: iso(r.time_ms),
  duration_ms: r.duration_ms,
  status: { code: r.status_code, message: r.status_message },
  attributes: parse(r.attributes),
  events: parse(r.events),
  links: parse(r.links),
  resource: parse(r.resource),
  scope: parse(r.scope),
});

export const logJson = (r: Row<'logs'>) => ({
  ...common(r),
  time_unix_nano: r.time_ns,
  observed_time_unix_nano: r.observed_ns,
  time: iso(r.time_ms),
  severity_number: r.severity_number,
  severity_text: r.severity_text,
  body: parse(r.body),
  event_name: r.event_name,
  trace_id: r.trace_id,
  span_id: r.span_id,
  attributes: parse(r.attributes),
  resource: parse(r.resource),
  scope: parse(r.scope),
});

export const metricPointJson = (r: Row<'metric_points'>) => ({
  ...common(r),
  name: r.name,
  description: r.description,
  unit: r.unit,
  type: r.type,
  time_unix_nano: r.time_ns,
  start_time_unix_nano: r.start_ns,
  time: iso(r.time_ms),
  value: r.value,
  data: parse(r.data),
  attributes: parse(r.attributes),
  resource: parse(r.resource),
  scope: parse(r.scope),
});

export const replayChunkJson = (r: Row<'replay_chunks'>) => ({
  ...common(r),
  replay_id: r.replay_id,
  seq: r.seq,
  start_time: iso(r.time_ms),
  end_time: iso(r.end_ms),
  event_count: r.event_count,
  encoding: r.encoding,
  ...storedEvents(r.encoding, r.data),
});

/** A stored recipe step as the API returns it: the step as recorded, with where and when it was stored. */
export const recipeJson = (r: Row<'recipes'>) => ({
  ...common(r),
  replay_id: r.replay_id,
  trace_id: r.trace_id,
  ...(parse(r.step) as RecipeStep),
});
