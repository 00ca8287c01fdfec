/**
 * Storage failures that say nothing about the request: a deadlock or serialization failure, a lost or refused
 * connection, a server shutting down or out of resources, a busy or full SQLite file. A write that meets one is retried
 * (deadlocks, serialization) or answered 503 with Retry-After, which OTLP exporters and the SDK retry; a 500 they
 * would not, and the data would be lost.
 */

/** SQLSTATEs worth running the same transaction again for, at once. */
const RETRY_NOW = new Set(['40001', '40P01']);

/** SQLSTATE classes and codes that are the database's trouble, not the request's. */
const TRANSIENT_CLASSES = ['08', '53', '57P'];
const TRANSIENT_CODES = new Set([...RETRY_NOW, '55P03', '57014']);
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'SVC_WRITER_STOPPED',
]);
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|PROTOCOL)/;
/** node-postgres reports a dropped connection or an exhausted pool without a code. */
const TRANSIENT_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

export function isTransientStorageError(err: unknown): boolean {
  const code = codeOf(err);
  if (TRANSIENT_CODES.has(code) || TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLITE.test(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_CLASSES.some((c) => code.startsWith(c))) return true;
  return err instanceof Error && TRANSIENT_MESSAGES.test(err.message);
}

export interface RetryOptions {
  /** Runs of the transaction in all, the first included. */
  attempts: number;
  /** Upper bound of the random pause before the n-th retry: `baseDelayMs * 2^n`. */
  baseDelayMs: number;
}

const DEFAULT_RETRY: RetryOptions = { attempts: 5, baseDelayMs: 10 };

/**
 * Runs `transaction` again after a deadlock or serialization failure (PostgreSQL rolled it back whole, so running it
 * again is safe), with a short random pause so the transactions that collided do not collide again.
 */
export async function retryOnConflict<T>(
  transaction: () => Promise<T>,
  options: RetryOptions = DEFAULT_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (attempt >= options.attempts || !RETRY_NOW.has(codeOf(err))) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * options.baseDelayMs * 2 ** attempt));
    }
  }
}
