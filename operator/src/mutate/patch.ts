/** One RFC 6902 operation; the mutation only ever adds, or replaces a value it extends (NODE_OPTIONS …). */
export interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** Path segments from the document root: object keys or array indices. */
export type Segments = readonly (string | number)[];

/** RFC 6901: `~` becomes `~0` and `/` becomes `~1` (in that order), so `svc.io/injected` is `svc.io~1injected`. */
export function pointer(segments: Segments): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

type Container = Record<string, unknown> | unknown[];

/**
 * Builds a JSON Patch against a document it never modifies. Adding under a map or array that does not exist adds the
 * whole map or array in one operation (a JSON Patch `add` to `/metadata/annotations/x` fails when `annotations` is
 * absent); later additions to a container this builder created go into that operation's value. Existing maps and
 * arrays are only ever added to, never replaced.
 */
export class PatchBuilder {
  readonly operations: JsonPatchOperation[] = [];
  /** Containers missing from the document that an `add` of this patch creates, by pointer. */
  private readonly created = new Map<string, Container>();

  constructor(private readonly document: unknown) {}

  /** Adds `key` to the map at `parent`, creating the map (and its missing ancestors) when absent. */
  setKey(parent: Segments, key: string, value: unknown): void {
    const fresh = this.ensure(parent, 'object');
    if (fresh) (fresh as Record<string, unknown>)[key] = value;
    else this.operations.push({ op: 'add', path: pointer([...parent, key]), value });
  }

  /** Appends to the array at `array`, creating it with this one item when absent. */
  append(array: Segments, item: unknown): void {
    const fresh = this.ensure(array, 'array');
    if (fresh) (fresh as unknown[]).push(item);
    else this.operations.push({ op: 'add', path: `${pointer(array)}/-`, value: item });
  }

  /** Inserts before `index` of an array that exists in the document. */
  insert(array: Segments, index: number, item: unknown): void {
    this.operations.push({ op: 'add', path: pointer([...array, index]), value: item });
  }

  /** Replaces a value that exists in the document. */
  replace(path: Segments, value: unknown): void {
    this.operations.push({ op: 'replace', path: pointer(path), value });
  }

  /**
   * Undefined when the container exists in the document (operations address it by path); otherwise the fresh
   * container this patch adds, to be filled in place.
   */
  private ensure(path: Segments, kind: 'object' | 'array'): Container | undefined {
    const key = pointer(path);
    const made = this.created.get(key);
    if (made) return made;
    const existing = valueAt(this.document, path);
    if (existing !== null && typeof existing === 'object') return undefined;
    if (path.length === 0) throw new Error('the patched document must be an object');
    const fresh: Container = kind === 'array' ? [] : {};
    const parent = path.slice(0, -1);
    const last = path[path.length - 1] as string | number;
    const parentFresh = this.ensure(parent, typeof last === 'number' ? 'array' : 'object');
    if (parentFresh) (parentFresh as Record<string, unknown>)[last] = fresh;
    else this.operations.push({ op: 'add', path: key, value: fresh });
    this.created.set(key, fresh);
    return fresh;
  }
}

function valueAt(document: unknown, path: Segments): unknown {
  let node = document;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}
