import type { SecretBox } from '../../secrets/secret-box';
import type { Symbolicator } from '../../sourcemaps/types';
import {
  lockCursor,
  readBatch,
  readCursor,
  sameCursor,
  saveCursor,
  type Cursor,
  type DetectionReader,
  type ReadBatch,
} from './cursor';
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
const errorLogs = (trx: DetectionReader, ids: number[]) =>
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
const spanErrors = (trx: DetectionReader, ids: number[]) =>
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

/** Thrown inside the counting transaction to roll it back when another batch moved a cursor since this one was read. */
class CursorMoved extends Error {
  constructor() {
    super('detection cursor moved');
  }
}

/** A batch read after the cursors as they were saved, not counted yet. */
interface ReadErrors {
  logs: ReadBatch & { from: Cursor };
  spans: ReadBatch & { from: Cursor };
  occurrences: ErrorOccurrence[];
}

/**
 * Reads the next logs and spans after the shared cursors and counts their errors into groups. Reading takes no lock:
 * on SQLite the transaction that counts holds the one write lock, which ingest's writer waits for, so only counting and
 * moving the cursors run in it. That transaction first locks the cursors and checks they are where the batch was read
 * from; when another process counted a batch meanwhile it is rolled back and the next batch read. So a crash counts
 * nothing twice, and concurrent detectors (several server processes) never count the same rows.
 *
 * Symbolication runs before that transaction too: it reads maps and may parse megabytes, which would hold the
 * cursors' locks that long (and on SQLite the transaction holds the one connection the symbolicator reads through).
 * A batch whose stacks were not loaded yet is read again once they are; the second read finds them loaded, unless
 * other rows came meanwhile.
 */
export async function consumeBatch(
  db: DetectionDb,
  now: number,
  options: DetectionOptions,
  context: ConsumeContext,
): Promise<ConsumedBatch> {
  const frames = stackFrames(context.symbolicator);
  for (;;) {
    const read = await readErrors(db, now, options);
    const unloaded = read.occurrences.filter((o) => frames.of(o) === undefined);
    if (unloaded.length > 0) {
      // Symbolicating may take seconds: the batch is read again after it, so what is counted is what is stored then.
      await frames.load(unloaded);
      continue;
    }
    try {
      return await db
        .transaction()
        .execute((trx) =>
          countLocked(trx, read, now, options, { frames, publicUrl: context.publicUrl, box: context.box }),
        );
    } catch (err) {
      if (!(err instanceof CursorMoved)) throw err;
    }
  }
}

async function readErrors(db: DetectionReader, now: number, options: DetectionOptions): Promise<ReadErrors> {
  const logsFrom = await readCursor(db, 'logs');
  const spansFrom = await readCursor(db, 'spans');
  const logs = await readBatch(db, logsFrom, now, options);
  const spans = await readBatch(db, spansFrom, now, options);
  const occurrences = [...(await errorLogs(db, logs.counted)), ...(await spanErrors(db, spans.counted))];
  return { logs: { ...logs, from: logsFrom }, spans: { ...spans, from: spansFrom }, occurrences };
}

async function countLocked(
  trx: DetectionTrx,
  { logs, spans, occurrences }: ReadErrors,
  now: number,
  options: DetectionOptions,
  context: Pick<RecordContext, 'frames' | 'publicUrl' | 'box'>,
): Promise<ConsumedBatch> {
  // Always in this order, so two detectors cannot deadlock on the two cursors.
  const logsCursor = await lockCursor(trx, 'logs');
  const spansCursor = await lockCursor(trx, 'spans');
  if (!sameCursor(logsCursor, logs.from) || !sameCursor(spansCursor, spans.from)) throw new CursorMoved();
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
