import type { SecretBox } from '../../secrets/secret-box';
import type { Symbolicator } from '../../sourcemaps/types';
import { lockCursor, readBatch, saveCursor } from './cursor';
import { ERROR_SEVERITY, errorsOfSpan, issueErrorOfLog, type ErrorOccurrence } from './error-records';
import { recordErrors, type DetectionDb, type DetectionTrx, type GroupRef, type RecordContext } from './groups';
import { idIn, inRuns } from './id-ranges';
import { stackFrames } from './stack-frames';
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

/** Error logs among the rows with these ids that form issues. */
const errorLogs = (trx: DetectionTrx, ids: number[]) =>
  inRuns(ids, async (runs) =>
    (
      await trx
        .selectFrom('logs')
        .select([
          'project_id',
          'app_id',
          'time_ms',
          'received_ms',
          'session_id',
          'trace_id',
          'body',
          'attributes',
          'resource',
        ])
        .where(idIn(runs))
        .where('severity_number', '>=', ERROR_SEVERITY)
        .orderBy('id')
        .execute()
    ).flatMap((row) => issueErrorOfLog(row) ?? []),
  );

/** Exception events of the spans with these ids. */
const spanErrors = (trx: DetectionTrx, ids: number[]) =>
  inRuns(ids, async (runs) =>
    (
      await trx
        .selectFrom('spans')
        .select([
          'project_id',
          'app_id',
          'time_ms',
          'received_ms',
          'session_id',
          'trace_id',
          'events',
          'attributes',
          'resource',
        ])
        .where(idIn(runs))
        // Most spans have no exception event; errorsOfSpan looks at the events of those that may.
        .where('events', 'like', '%"name":"exception"%')
        .orderBy('id')
        .execute()
    ).flatMap(errorsOfSpan),
  );

/** What counting needs besides the rows: the maps, and the base URL and signing key for links in regression notices. */
export interface ConsumeContext {
  symbolicator: Symbolicator | undefined;
  publicUrl: string;
  /** Signs the issue page link of a regression notice. */
  box: SecretBox;
}

/** Thrown inside the counting transaction to roll it back when errors came whose stacks are not symbolicated yet. */
class FramesNeeded extends Error {
  constructor(readonly occurrences: ErrorOccurrence[]) {
    super('stack frames needed');
  }
}

/**
 * Reads the next logs and spans after the shared cursors, counts their errors into groups, and moves the cursors, in
 * one transaction: a crash counts nothing twice, and concurrent detectors (several server processes) wait for each
 * other instead of counting the same rows.
 *
 * Symbolication never runs inside that transaction: it reads maps and may parse megabytes, which would hold the
 * cursors' locks that long (and on SQLite the transaction holds the one connection the symbolicator reads through).
 * A batch whose stacks are not loaded yet is rolled back, its stacks symbolicated, and read again; the second read
 * finds them loaded, unless other rows came meanwhile.
 */
export async function consumeBatch(
  db: DetectionDb,
  now: number,
  options: DetectionOptions,
  context: ConsumeContext,
): Promise<ConsumedBatch> {
  const frames = stackFrames(context.symbolicator);
  for (;;) {
    try {
      return await db
        .transaction()
        .execute((trx) => countLocked(trx, now, options, { frames, publicUrl: context.publicUrl, box: context.box }));
    } catch (err) {
      if (!(err instanceof FramesNeeded)) throw err;
      await frames.load(err.occurrences);
    }
  }
}

async function countLocked(
  trx: DetectionTrx,
  now: number,
  options: DetectionOptions,
  context: Pick<RecordContext, 'frames' | 'publicUrl' | 'box'>,
): Promise<ConsumedBatch> {
  // Always in this order, so two detectors cannot deadlock on the two cursors.
  const logsCursor = await lockCursor(trx, 'logs');
  const spansCursor = await lockCursor(trx, 'spans');
  const logs = await readBatch(trx, logsCursor, now, options);
  const spans = await readBatch(trx, spansCursor, now, options);
  const occurrences = [...(await errorLogs(trx, logs.counted)), ...(await spanErrors(trx, spans.counted))];
  const unloaded = occurrences.filter((o) => context.frames.of(o) === undefined);
  if (unloaded.length > 0) throw new FramesNeeded(unloaded);
  const touched = await recordErrors(trx, occurrences, { windowMs: options.windowMs, now, ...context });
  await saveCursor(trx, logs.next);
  await saveCursor(trx, spans.next);
  return {
    logsRead: logs.counted.length,
    spansRead: spans.counted.length,
    errors: occurrences.length,
    touched,
    more: logs.more || spans.more,
  };
}
