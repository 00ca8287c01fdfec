/**
 * Finds an AdmissionReview's `request.uid` in a body fed chunk by chunk, holding none of it. Used for a body over the
 * webhook's size limit: it is answered allowed with no patch, but with the request's uid, because kube-apiserver
 * counts an answer with another uid as a webhook error.
 *
 * This is a structural scan of JSON, not a parser. It follows nesting and strings (so brackets and quotes inside
 * strings are skipped) and remembers the current key of the top-level object and of `request`. That way key order does
 * not matter, and no other "uid" is taken for the request's uid: not `request.userInfo.uid`, not the pod's
 * `metadata.uid`, not text inside an annotation. The scan works on bytes because every byte of a multi-byte UTF-8
 * character is 0x80 or above and so can never look like JSON punctuation. Malformed input gives no uid; it never
 * throws.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Longest key or uid kept (raw bytes). Kubernetes uids are 36-character UUIDs, and the only keys compared are
 * "request" and "uid". A longer string cannot be either, so it is skipped instead of buffered.
 */
const MAX_CAPTURE = 256;

type Container = 'object' | 'array';
/** What the string being read is: a key to remember, the uid itself, or anything else. */
type Role = 'key' | 'uid' | 'skip';

export class UidScanner {
  /** Open objects and arrays. Only the kinds at depths 1 and 2 are kept, since keys deeper down never matter. */
  private depth = 0;
  private readonly containers: (Container | undefined)[] = [undefined, undefined];
  /** The last key read at depths 1 and 2. */
  private readonly keys: (string | undefined)[] = [undefined, undefined];
  /** True after `{` or `,` in an object: the next string is a key. */
  private expectKey = false;
  /** True while inside the object that is the top-level `request`. */
  private inRequest = false;
  private inString = false;
  private escaped = false;
  private role: Role = 'skip';
  private readonly captured = Buffer.alloc(MAX_CAPTURE);
  private capturedLength = 0;
  private overflowed = false;
  private found: string | undefined;

  /** The request's uid once it has been read; it stays undefined if the body does not contain it. */
  get uid(): string | undefined {
    return this.found;
  }

  feed(chunk: Uint8Array): void {
    if (this.found !== undefined) return;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        this.stringByte(byte);
        if (this.found !== undefined) return;
        continue;
      }
      switch (byte) {
        case QUOTE:
          this.startString();
          break;
        case OPEN_OBJECT:
          this.open('object');
          break;
        case OPEN_ARRAY:
          this.open('array');
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.close();
          break;
        case COLON:
          this.expectKey = false;
          break;
        case COMMA:
          this.expectKey = this.containerHere() === 'object';
          break;
        default:
        // Whitespace, numbers, true/false/null: nothing to track.
      }
    }
  }

  /** The kind of the innermost open container, if it is at depth 1 or 2 (deeper kinds are not tracked). */
  private containerHere(): Container | undefined {
    return this.depth === 1 || this.depth === 2 ? this.containers[this.depth - 1] : undefined;
  }

  private open(kind: Container): void {
    const valuePosition = !this.expectKey;
    this.depth++;
    if (this.depth <= 2) {
      this.containers[this.depth - 1] = kind;
      this.keys[this.depth - 1] = undefined;
    }
    if (this.depth === 2)
      this.inRequest =
        kind === 'object' && valuePosition && this.containers[0] === 'object' && this.keys[0] === 'request';
    this.expectKey = kind === 'object';
  }

  private close(): void {
    if (this.depth === 2) this.inRequest = false;
    if (this.depth > 0) this.depth--;
    this.expectKey = false;
  }

  private startString(): void {
    this.inString = true;
    this.escaped = false;
    this.capturedLength = 0;
    this.overflowed = false;
    if (this.expectKey && this.containerHere() === 'object') this.role = 'key';
    else if (this.depth === 2 && this.inRequest && this.keys[1] === 'uid') this.role = 'uid';
    else this.role = 'skip';
  }

  private stringByte(byte: number): void {
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) return this.endString();
    if (this.role === 'skip') return;
    if (this.capturedLength === MAX_CAPTURE) this.overflowed = true;
    else this.captured[this.capturedLength++] = byte;
  }

  private endString(): void {
    this.inString = false;
    if (this.role === 'skip') return;
    const text = this.overflowed ? undefined : decodeJsonString(this.captured.subarray(0, this.capturedLength));
    if (this.role === 'key') this.keys[this.depth - 1] = text;
    else if (text !== undefined && text !== '') this.found = text;
  }
}

/** A JSON string's raw bytes (between the quotes) as text, escapes resolved; undefined when they are not valid JSON. */
function decodeJsonString(raw: Buffer): string | undefined {
  try {
    return JSON.parse(`"${raw.toString('utf8')}"`) as string;
  } catch {
    return undefined;
  }
}
