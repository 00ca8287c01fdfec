import { lockCursor, readBatch, saveCursor } from './cursor';
import { ERROR_SEVERITY, errorOfLog, errorsOfSpan } from './error-records';
import { recordErrors, type DetectionDb, type DetectionTrx, type GroupRef } from './groups';
import { idIn, inRuns } from './id-ranges';
import type { DetectionOptions } from './thresholds';

/** What one batch counted. */
export interface ConsumedBatch {
  logsRead: number;
  spansRead: number;
  errors: number;
  touched: GroupRef[];
  /** Rows are left that this batch could not take: read again right away. */
  more: boolean;
}

/** Error logs among the rows with these ids. */
const errorLogs = (trx: DetectionTrx, ids: number[]) =>
  inRuns(ids, async (runs) =>
    (
      await trx
        .selectFrom('logs')
        .select(['project_id', 'app_id', 'time_ms', 'received_ms', 'session_id', 'body', 'attributes', 'resource'])
        .where(idIn(runs))
        .where('severity_number', '>=', ERROR_SEVERITY)
        .orderBy('id')
        .execute()
    ).map(errorOfLog),
  );

/** Exception events of the spans with these ids. */
const spanErrors = (trx: DetectionTrx, ids: number[]) =>
  inRuns(ids, async (runs) =>
    (
      await trx
        .selectFrom('spans')
        .select(['project_id', 'app_id', 'time_ms', 'received_ms', 'session_id', 'events', 'resource'])
        .where(idIn(runs))
        // Most spans have no exception event; errorsOfSpan looks at the events of those that may.
        .where('events', 'like', '%"name":"exception"%')
        .orderBy('id')
        .execute()
    ).flatMap(errorsOfSpan),
  );

/**
 * Reads the next logs and spans after the shared cursors, counts their errors into groups, and moves the cursors, in
 * one transaction: a crash counts nothing twice, and concurrent detectors (several server processes) wait for each
 * other instead of counting the same rows.
 */
export function consumeBatch(db: DetectionDb, now: number, options: DetectionOptions): Promise<ConsumedBatch> {
  return db.transaction().execute(async (trx) => {
    // Always in this order, so two detectors cannot deadlock on the two cursors.
    const logsCursor = await lockCursor(trx, 'logs');
    const spansCursor = await lockCursor(trx, 'spans');
    const logs = await readBatch(trx, logsCursor, now, options);
    const spans = await readBatch(trx, spansCursor, now, options);
    const occurrences = [...(await errorLogs(trx, logs.counted)), ...(await spanErrors(trx, spans.counted))];
    const touched = await recordErrors(trx, occurrences, options.windowMs, now);
    await saveCursor(trx, logs.next);
    await saveCursor(trx, spans.next);
    return {
      logsRead: logs.counted.length,
      spansRead: spans.counted.length,
      errors: occurrences.length,
      touched,
      more: logs.more || spans.more,
    };
  });
}
