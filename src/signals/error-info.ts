/** What the SDK reads from a thrown value that looks like an error. */
export interface ErrorLike {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly stack?: unknown;
  readonly cause?: unknown;
}

/** `cause` chains followed into a stack trace; deeper causes (or a cycle) are cut off. */
const MAX_CAUSES = 3;

/**
 * True for `Error` instances, errors of other frames (where `instanceof Error` is false), `DOMException`s, and plain
 * objects carrying both a string `message` and a string `stack` (errors re-created by serialisation libraries).
 */
export function isErrorLike(value: unknown): value is ErrorLike {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof Error) return true;
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Error]' || tag === '[object DOMException]') return true;
  const candidate = value as ErrorLike;
  return typeof candidate.message === 'string' && typeof candidate.stack === 'string';
}

/** Reads a property that may be a throwing getter. */
function read(error: ErrorLike, key: keyof ErrorLike): unknown {
  try {
    return error[key];
  } catch {
    return undefined;
  }
}

/** The error's `name` (`TypeError`, `AbortError`…), or `Error` when it has none. */
export function errorType(error: ErrorLike): string {
  const name = read(error, 'name');
  return typeof name === 'string' && name !== '' ? name : 'Error';
}

/** The error's `message` as text (`''` when it has none). */
export function errorMessage(error: ErrorLike): string {
  const message = read(error, 'message');
  if (typeof message === 'string') return message;
  return message === undefined || message === null ? '' : String(message);
}

/** `Name: message`, or just the name when the message is empty: how browsers head an uncaught error. */
export function errorHead(error: ErrorLike): string {
  const message = errorMessage(error);
  return message === '' ? errorType(error) : `${errorType(error)}: ${message}`;
}

function ownStack(error: ErrorLike): string {
  const head = errorHead(error);
  const stack = read(error, 'stack');
  if (typeof stack !== 'string' || stack === '') return head;
  // V8 starts the stack with the head; Firefox and Safari give only the frames.
  return stack.startsWith(errorType(error)) ? stack : `${head}\n${stack}`;
}

/**
 * The error as a console shows it: its head and stack frames, then `Caused by:` each error of its `cause` chain
 * (up to three), the way Java and Node print causes.
 */
export function errorText(error: ErrorLike): string {
  let text = ownStack(error);
  let cause = read(error, 'cause');
  const seen = new Set<unknown>([error]);
  for (let level = 0; level < MAX_CAUSES && isErrorLike(cause) && !seen.has(cause); level++) {
    seen.add(cause);
    text += `\nCaused by: ${ownStack(cause)}`;
    cause = read(cause, 'cause');
  }
  return text;
}
