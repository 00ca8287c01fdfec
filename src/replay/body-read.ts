import type { BodyPlaceholderKind } from '../../wire/replay';
import { redactBodyText } from './body-redact';
import type { SharedHelpers } from './shared-helpers';

/**
 * What body reading shares with the initial chunk, handed in with each call (`shared` of the functions below, from
 * body-source.ts) instead of imported: shared-helpers.ts says why.
 */
type Shared = Pick<SharedHelpers, 'looksSensitive_' | 'redacted_' | 'bodyPlaceholder_' | 'replayLimits_'>;

/** A body as a recipe step carries it: redacted text or a placeholder, `null` when it was too large to redact. */
export interface RecordedBody {
  readonly body: string | null;
  readonly truncated: boolean;
}

/** A body now, later (still being read), or none (no body). */
export type BodyCapture = RecordedBody | undefined | Promise<RecordedBody | undefined>;

/**
 * Largest body read to be redacted, bytes. Redaction needs the whole document (a JSON prefix cannot be parsed, and a
 * cut can fall inside a secret), so a body is read whole up to this size, redacted, and only then cut to
 * `REPLAY_LIMITS.maxRecipeBodyChars`; a larger one is not kept at all.
 */
export const BODY_READ_CAP = 1_000_000;
/** A response body still streaming after this long (long polling, a slow download) is given up on. */
export const BODY_READ_TIMEOUT_MS = 10_000;

const TOO_LARGE: RecordedBody = { body: null, truncated: true };

/**
 * Runs `read` in a later task: redacting a body never runs inside the app's own call or event listener, and never
 * holds up the request or the next listener. Here rather than beside the body sources (body-source.ts, in the initial
 * chunk), which reach it through the loaded module: a module both chunks imported would be a chunk of its own to
 * bundlers that split at dynamic imports (esbuild), with its own compression overhead.
 */
export const later = <T>(read: () => T): Promise<T> => new Promise((resolve) => setTimeout(resolve, 0)).then(read);

/** Text bodies are redacted whole, then capped. */
export function recordText(text: string, shared: Shared): RecordedBody {
  if (text.length > BODY_READ_CAP) return TOO_LARGE;
  const redacted = redactBodyText(text, shared);
  const max = shared.replayLimits_.maxRecipeBodyChars;
  return { body: redacted.slice(0, max), truncated: redacted.length > max };
}

/** Stands in for a body that is not text (`[binary 123 bytes]`) or could not be read. */
const placeholder = (shared: Shared, kind: BodyPlaceholderKind, bytes?: number | string | null): RecordedBody => ({
  body: shared.bodyPlaceholder_(kind, bytes),
  truncated: false,
});

/** Content types whose bodies are text worth recording: JSON, text (not event streams), XML, forms, JavaScript. */
export function isTextual(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return false;
  return /^text\/|[/+]json$|[/+]xml$|\/x-www-form-urlencoded$|javascript$/.test(type);
}

/** FormData as `name=value&...`: text fields as they are, files as a placeholder naming their size. */
function formDataText(form: FormData): string {
  const fields = new URLSearchParams();
  form.forEach((value, name) => fields.append(name, typeof value === 'string' ? value : `[file ${value.size} bytes]`));
  return fields.toString();
}

/**
 * A body held in memory (what an app passed to `fetch` or `XMLHttpRequest.send`, or an XHR's `response`), as a recipe
 * keeps it: strings, URLSearchParams and FormData text fields are recorded (redacted and capped); binary bodies,
 * streams and documents are not read, only named by a placeholder.
 */
export function recordBodyValue(body: unknown, shared: Shared): RecordedBody | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return recordText(body, shared);
  if (body instanceof URLSearchParams) return recordText(body.toString(), shared);
  // The SDK only runs where these exist (a browser); it does nothing under SSR.
  if (body instanceof FormData) return recordText(formDataText(body), shared);
  if (body instanceof Blob) return placeholder(shared, 'binary', body.size);
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return placeholder(shared, 'binary', body.byteLength);
  if (body instanceof ReadableStream) return placeholder(shared, 'stream');
  return placeholder(shared, 'unreadable body');
}

/**
 * Reads `stream` as UTF-8 up to {@link BODY_READ_CAP} bytes; `undefined` (and the stream cancelled) when it is larger
 * or still running after {@link BODY_READ_TIMEOUT_MS}. Only ever given a clone or a tee branch: the app's own body
 * is never touched, and cancelling the copy leaves it flowing.
 */
async function readCapped(stream: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void reader.cancel().catch(() => undefined);
  }, BODY_READ_TIMEOUT_MS);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (expired) return undefined;
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > BODY_READ_CAP) {
        void reader.cancel().catch(() => undefined);
        return undefined;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The body of a fetch `Request` or `Response`, read off `copy`, the clone body-source.ts took synchronously at the
 * call (before the app or fetch consumed the original): text of a textual content type is read and recorded; anything
 * else is named by a placeholder without reading it, and the clone's stream released.
 */
export async function recordStreamBody(copy: Request | Response, shared: Shared): Promise<RecordedBody | undefined> {
  const { body, headers } = copy;
  if (body === null) return undefined;
  const length = headers.get('content-length');
  const type = headers.get('content-type');
  const textual = isTextual(type);
  if (!textual || Number(length) > BODY_READ_CAP) {
    void body.cancel().catch(() => undefined);
    return textual
      ? TOO_LARGE
      : placeholder(shared, type?.startsWith('text/event-stream') ? 'event stream' : 'binary', length);
  }
  const text = await readCapped(body);
  return text === undefined ? TOO_LARGE : later(() => recordText(text, shared));
}

/** What an XMLHttpRequest's response is once it ended, read off it at `loadend` (before the app can reuse it). */
export interface XhrResponse {
  readonly response: unknown;
  readonly responseType: XMLHttpRequestResponseType;
  readonly contentType: string | null;
}

/**
 * The response of a finished XMLHttpRequest, already in memory: text of a textual content type (`responseText`, or
 * the parsed `response` when `responseType` is 'json') is recorded; anything else is named by a placeholder.
 */
export function recordXhrResponse(
  { response, responseType, contentType }: XhrResponse,
  shared: Shared,
): RecordedBody | undefined {
  if (response === null || response === '') return undefined;
  if (responseType === 'json') return recordText(JSON.stringify(response), shared);
  if (typeof response !== 'string') return recordBodyValue(response, shared);
  return isTextual(contentType) ? recordText(response, shared) : placeholder(shared, 'binary');
}
