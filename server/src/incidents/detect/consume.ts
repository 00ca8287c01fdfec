import { lockCursor, readRange, saveCursor } from './cursor';
import { ERROR_SEVERITY, errorOfLog, errorsOfSpan, type ErrorOccurrence } from './error-records';
import { recordErrors, type DetectionDb, type GroupRef } from './groups';
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
    const logs = await readRange(trx, 'logs', logsCursor, now, options);
    const spans = await readRange(trx, 'spans', spansCursor, now, options);

    const occurrences: ErrorOccurrence[] = [];
    if (logs.to > logs.from) {
      const rows = await trx
        .selectFrom('logs')
        .select(['project_id', 'app_id', 'time_ms', 'received_ms', 'session_id', 'body', 'attributes', 'resource'])
        .where('id', '>', logs.from)
        .where('id', '<=', logs.to)
        .where('severity_number', '>=', ERROR_SEVERITY)
        .orderBy('id')
        .execute();
      occurrences.push(...rows.map(errorOfLog));
    }
    if (spans.to > spans.from) {
      const rows = await trx
        .selectFrom('spans')
        .select(['project_id', 'app_id', 'time_ms', 'received_ms', 'session_id', 'events', 'resource'])
        .where('id', '>', spans.from)
        .where('id', '<=', spans.to)
        // Most spans have no exception event; errorsOfSpan looks at the events of those that may.
        .where('events', 'like', '%"name":"exception"%')
        .orderBy('id')
        .execute();
      occurrences.push(...rows.flatMap(errorsOfSpan));
    }
    const touched = await recordErrors(trx, occurrences, options.windowMs, now);
    await saveCursor(trx, logs.next);
    await saveCursor(trx, spans.next);
    return {
      logsRead: logs.to - logs.from,
      spansRead: spans.to - spans.from,
      errors: occurrences.length,
      touched,
      more: logs.more || spans.more,
    };
  });
}
