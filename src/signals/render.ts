import { describeNode, isDomNode } from './element';
import { errorHead, errorText, isErrorLike } from './error-info';

/** Containers nested deeper than this are shown as `[Object]` / `[Array]`, as Node's `util.inspect` does. */
const MAX_DEPTH = 5;
/** Entries shown per object, array, map or set; more are summarised as `…`. */
const MAX_ENTRIES = 100;
/** Appended to text that was cut. */
const TRUNCATION_MARK = '…';

/** Cuts `text` to at most `maxLength` characters (the mark included), never between the halves of a surrogate pair. */
export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = Math.max(0, maxLength - TRUNCATION_MARK.length);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATION_MARK;
}

/** Collects text up to a budget, so rendering a huge value stops early instead of building it all and cutting it. */
class Output {
  private readonly parts_: string[] = [];
  private length_ = 0;
  constructor(private readonly maxLength_: number) {}

  /** Characters still wanted: the budget plus one, so that `text()` can tell the value was cut. */
  get room(): number {
    return this.maxLength_ + 1 - this.length_;
  }

  /** True once the budget is exceeded: the walk stops. */
  get full(): boolean {
    return this.room <= 0;
  }

  push(text: string): void {
    if (this.full) return;
    const part = text.length > this.room ? text.slice(0, this.room) : text;
    this.parts_.push(part);
    this.length_ += part.length;
  }

  text(): string {
    return truncate(this.parts_.join(''), this.maxLength_);
  }
}

type Walk = (out: Output, value: unknown, depth: number, ancestors: object[]) => void;

/** Writes `items` between `open` and `close`, separated by commas, at most {@link MAX_ENTRIES} of them. */
function writeList<T>(
  out: Output,
  open: string,
  close: string,
  items: Iterable<T>,
  writeItem: (item: T) => void,
): void {
  out.push(open);
  let count = 0;
  for (const item of items) {
    if (out.full) return;
    if (count > 0) out.push(',');
    if (count === MAX_ENTRIES) {
      out.push(TRUNCATION_MARK);
      break;
    }
    writeItem(item);
    count++;
  }
  out.push(close);
}

/** A property read that may hit a throwing getter. */
function readProperty(object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key];
  } catch {
    return '[unreadable]';
  }
}

function describeBinary(value: ArrayBuffer | ArrayBufferView): string {
  const name = Object.prototype.toString.call(value).slice(8, -1);
  const size = 'length' in value && typeof value.length === 'number' ? value.length : value.byteLength;
  return `${name}(${size})`;
}

const writeContainer: Walk = (out, value, depth, ancestors) => {
  const container = value as object;
  const child = (item: unknown): void => writeValue(out, item, depth + 1, ancestors);
  if (Array.isArray(container)) {
    writeList(out, '[', ']', container as unknown[], child);
  } else if (container instanceof Map) {
    out.push(`Map(${container.size}) `);
    writeList(out, '{', '}', container as Map<unknown, unknown>, ([key, item]) => {
      child(key);
      out.push(' => ');
      child(item);
    });
  } else if (container instanceof Set) {
    out.push(`Set(${container.size}) `);
    writeList(out, '[', ']', container as Set<unknown>, child);
  } else if (typeof (container as { toJSON?: unknown }).toJSON === 'function') {
    child((container as { toJSON: () => unknown }).toJSON());
  } else {
    writeList(out, '{', '}', Object.keys(container), (key) => {
      out.push(`${JSON.stringify(key)}:`);
      child(readProperty(container, key));
    });
  }
};

const writeObject: Walk = (out, value, depth, ancestors) => {
  const object = value as object;
  const nested = depth > 0;
  if (ancestors.includes(object)) out.push('[Circular]');
  else if (isErrorLike(object)) out.push(nested ? `[${errorHead(object)}]` : errorText(object));
  else if (isDomNode(object)) out.push(`[${describeNode(object)}]`);
  else if (object instanceof Date) {
    const text = Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
    out.push(nested ? JSON.stringify(text) : text);
  } else if (object instanceof RegExp) out.push(String(object));
  else if (object instanceof ArrayBuffer || ArrayBuffer.isView(object)) out.push(describeBinary(object));
  else if (depth >= MAX_DEPTH) out.push(Array.isArray(object) ? '[Array]' : '[Object]');
  else {
    ancestors.push(object);
    try {
      writeContainer(out, object, depth, ancestors);
    } finally {
      ancestors.pop();
    }
  }
};

const writeValue: Walk = (out, value, depth, ancestors) => {
  if (out.full) return;
  if (typeof value === 'string') {
    // Only what can still be shown is escaped: a megabyte string costs its first few kilobytes.
    const shown = value.length > out.room ? value.slice(0, out.room) : value;
    out.push(depth === 0 ? shown : JSON.stringify(shown));
  } else if (typeof value === 'bigint') out.push(`${value}n`);
  else if (typeof value === 'symbol') out.push(value.toString());
  else if (typeof value === 'function') out.push(`[Function ${value.name || '(anonymous)'}]`);
  else if (typeof value === 'object' && value !== null) writeObject(out, value, depth, ancestors);
  else out.push(String(value));
};

/**
 * Renders any value as text the way a console shows it: strings as they are, errors with their stack (and causes),
 * DOM nodes as `[main>div#cart>button.buy]`, other objects as compact JSON (`{"a":1,"b":[1,2]}`, valid JSON when the
 * value is plain data) with readable placeholders for what JSON cannot hold (`undefined`, `NaN`, `12n`,
 * `[Function f]`, `[Circular]`). At most {@link MAX_DEPTH} levels and {@link MAX_ENTRIES} entries per container;
 * never throws; stops walking as soon as `maxLength` characters are produced, so a huge object costs only what is
 * shown. Text longer than `maxLength` is cut and ends with `…`.
 */
export function renderValue(value: unknown, maxLength: number): string {
  if (typeof value === 'string') return truncate(value, maxLength);
  const out = new Output(maxLength);
  try {
    writeValue(out, value, 0, []);
  } catch {
    // A Proxy or exotic host object refused to be read.
    out.push('[unserializable]');
  }
  return out.text();
}

/** A short rendering of a bad argument for a warning: strings quoted (`"loud"`), anything else as {@link renderValue}. */
export function describeArgument(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(truncate(value, 40)) : renderValue(value, 40);
}
