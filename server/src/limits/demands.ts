import type { TelemetryTable } from '../db/schema';
import type { PendingBatch } from '../otlp/records';
import type { Demand } from './guard';
import type { LimitSignal } from './signals';

/** The signal each ingest table's rows count against, for the record signals. */
const RECORD_SIGNAL: Partial<Record<TelemetryTable, LimitSignal>> = {
  spans: 'spans',
  logs: 'logs',
  metric_points: 'metrics',
  recipes: 'recipes',
};

/**
 * What a decoded request asks of the limits: its records, or for a replay chunk its body bytes and, when it is a
 * replay's first chunk (seq 0), one replay started.
 */
export function demandsOf(batch: PendingBatch, bodyBytes: number): Demand[] {
  const signal = RECORD_SIGNAL[batch.table];
  if (signal) return [{ signal, units: batch.rows.length }];
  const started = (batch as PendingBatch<'replay_chunks'>).rows.filter((row) => row.seq === 0).length;
  return [
    { signal: 'replay_bytes', units: bodyBytes },
    { signal: 'replay_sessions', units: started },
  ];
}
