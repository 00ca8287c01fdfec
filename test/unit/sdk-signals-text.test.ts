import { describe, expect, it } from 'vitest';
import { toAttributes, toAttributeValue } from '../../src/signals/attributes';
import { formatConsoleArguments } from '../../src/signals/console-format';
import { errorText } from '../../src/signals/error-info';
import { describeException } from '../../src/signals/exception';
import { isKnownUnit, metricNameProblems } from '../../src/signals/metric-names';
import { renderValue, truncate } from '../../src/signals/render';

/**
 * The pure text functions behind the signals: how values, console arguments and errors become log text and
 * attributes, and the metric naming rules. The signals themselves are tested in Chromium (test/e2e/sdk-signals*).
 */

describe('renderValue', () => {
  it('shows strings as they are and other values as compact JSON with readable placeholders', () => {
    expect(renderValue('plain "text"', 100)).toBe('plain "text"');
    expect(renderValue({ a: 1, b: [true, null, 'x'], c: { d: undefined } }, 100)).toBe(
      '{"a":1,"b":[true,null,"x"],"c":{"d":undefined}}',
    );
    expect(renderValue([NaN, -Infinity, 12n, Symbol('s'), function named() {}, () => 1], 100)).toBe(
      '[NaN,-Infinity,12n,Symbol(s),[Function named],[Function (anonymous)]]',
    );
    expect(
      renderValue(
        new Map<unknown, unknown>([
          ['k', 1],
          [2, { v: 2 }],
        ]),
        100,
      ),
    ).toBe('Map(2) {"k" => 1,2 => {"v":2}}');
    expect(renderValue(new Set(['a', 1]), 100)).toBe('Set(2) ["a",1]');
    expect(renderValue({ at: new Date(0), re: /x+/g, bytes: new Uint8Array(3) }, 100)).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","re":/x+/g,"bytes":Uint8Array(3)}',
    );
    expect(renderValue(new Date(0), 100)).toBe('1970-01-01T00:00:00.000Z');
    expect(renderValue({ toJSON: () => ({ custom: true }) }, 100)).toBe('{"custom":true}');
    expect(renderValue(null, 100)).toBe('null');
    expect(renderValue(undefined, 100)).toBe('undefined');
  });

  it('marks cycles, not repeated references, and stops at depth 5 and 100 entries', () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    expect(renderValue(cyclic, 200)).toBe('{"shared":{"s":1},"again":{"s":1},"self":[Circular]}');
    expect(renderValue({ a: { b: { c: { d: { e: { f: 1 } } } } } }, 200)).toBe(
      '{"a":{"b":{"c":{"d":{"e":[Object]}}}}}',
    );
    const many = Array.from({ length: 150 }, (_, i) => i);
    expect(renderValue(many, 10_000)).toBe(`[${many.slice(0, 100).join(',')},…]`);
  });

  it('shows errors with their stack at the top and by their head inside objects', () => {
    const error = new TypeError('bad');
    expect(renderValue(error, 10_000)).toBe(error.stack);
    expect(renderValue({ error }, 100)).toBe('{"error":[TypeError: bad]}');
  });

  it('never exceeds the budget and stops reading once it is spent', () => {
    let readsAfterBudget = 0;
    const big = {
      first: 'x'.repeat(50),
      get second() {
        readsAfterBudget++;
        return 'never needed';
      },
    };
    const text = renderValue(big, 20);
    expect(text).toBe(`{"first":"xxxxxxxxx…`);
    expect(text).toHaveLength(20);
    expect(readsAfterBudget).toBe(0);
    expect(renderValue('y'.repeat(50), 10)).toBe(`${'y'.repeat(9)}…`);
  });

  it('never throws: throwing getters and hostile proxies are rendered as such', () => {
    const getter = {
      get broken(): never {
        throw new Error('getter');
      },
    };
    expect(renderValue(getter, 100)).toBe('{"broken":"[unreadable]"}');
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys');
        },
      },
    );
    expect(renderValue(hostile, 100)).toBe('[unserializable]');
  });
});

describe('truncate', () => {
  it('keeps text within the limit, mark included, and never splits a surrogate pair', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('abc😀def', 5)).toBe('abc…');
  });
});

describe('formatConsoleArguments', () => {
  it('expands format directives like the console and appends the other arguments', () => {
    expect(formatConsoleArguments(['%s is %d years, %i%%, %f', 'Ada', 36.6, '7.9', '1.5', 'extra'], 200)).toBe(
      'Ada is 36 years, 7%, 1.5 extra',
    );
    expect(formatConsoleArguments(['%cred%c plain', 'color:red', '', { o: 1 }], 200)).toBe('red plain {"o":1}');
    expect(formatConsoleArguments(['%o and %O and %j', { a: 1 }, [2], 'q'], 200)).toBe('{"a":1} and [2] and q');
    expect(formatConsoleArguments(['missing %s and %d'], 200)).toBe('missing %s and %d');
    expect(formatConsoleArguments(['%d', Symbol('s')], 200)).toBe('NaN');
    expect(formatConsoleArguments([1, 'two', { three: 3 }], 200)).toBe('1 two {"three":3}');
    expect(formatConsoleArguments([], 200)).toBe('');
  });

  it('is bounded', () => {
    const text = formatConsoleArguments(['a'.repeat(30), 'b'.repeat(30), { c: 'c'.repeat(30) }], 50);
    expect(text).toHaveLength(50);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('errors', () => {
  it('adds the head to stacks that lack it and follows causes, stopping at cycles', () => {
    const firefoxStyle = { name: 'TypeError', message: 'x is undefined', stack: 'handler@app.js:4:11\n' };
    expect(errorText(firefoxStyle)).toBe('TypeError: x is undefined\nhandler@app.js:4:11\n');
    const a = new Error('a');
    const b = new RangeError('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    const text = errorText(b);
    expect(text.startsWith('RangeError: b\n')).toBe(true);
    expect(text.match(/Caused by: /g)).toHaveLength(1);
  });

  it('describes any thrown value', () => {
    expect(describeException(new SyntaxError('bad'))).toMatchObject({ type: 'SyntaxError', message: 'bad' });
    expect(describeException('text')).toEqual({ type: 'Error', message: 'text', stacktrace: undefined });
    expect(describeException({ code: 42 })).toEqual({ type: 'Error', message: '{"code":42}', stacktrace: undefined });
    expect(describeException(null)).toEqual({ type: 'Error', message: 'null', stacktrace: undefined });
  });
});

describe('attributes', () => {
  it('keeps primitives and short primitive arrays, renders the rest, leaves out null and undefined', () => {
    expect(toAttributeValue('s')).toBe('s');
    expect(toAttributeValue(1.5)).toBe(1.5);
    expect(toAttributeValue(Infinity)).toBe('Infinity');
    expect(toAttributeValue(false)).toBe(false);
    expect(toAttributeValue(['a', 1, true])).toEqual(['a', 1, true]);
    expect(toAttributeValue(['a', { b: 1 }])).toBe('["a",{"b":1}]');
    expect(toAttributeValue(10n)).toBe('10n');
    expect(toAttributeValue(null)).toBeUndefined();
    expect(toAttributeValue(undefined)).toBeUndefined();
  });

  it('takes at most 128 attributes and treats __proto__ as a plain name', () => {
    const map = JSON.parse('{"__proto__": "kept", "": "empty name"}') as Record<string, unknown>;
    for (let i = 0; i < 130; i++) map[`k${i}`] = i;
    const { attributes, dropped } = toAttributes(map);
    expect(Object.keys(attributes)).toHaveLength(128);
    expect(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value).toBe('kept');
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    // The empty name, and k127 to k129 beyond the limit.
    expect(dropped).toBe(4);
  });
});

describe('metric naming rules', () => {
  it('accepts canonical names and units', () => {
    for (const [name, unit] of [
      ['http.client.request.duration', 's'],
      ['web_vital_lcp_ms', 'ms'],
      ['web_vital_cls', '1'],
      ['upload_bytes', 'By'],
      ['queue.depth', '{item}'],
      ['throughput', 'By/s'],
      ['cart_items', ''],
    ] as const) {
      expect(metricNameProblems(name, unit), `${name} [${unit}]`).toEqual([]);
    }
  });

  it('names every problem', () => {
    expect(metricNameProblems('Page-Load', 'ms')).toEqual([
      'should be lower-case words of letters and digits joined by "." or "_", starting with a letter',
    ]);
    expect(metricNameProblems('a..b', '')).toHaveLength(1);
    expect(metricNameProblems('trailing_', '')).toHaveLength(1);
    expect(metricNameProblems('1st', '')).toHaveLength(1);
    expect(metricNameProblems('x'.repeat(256), '')).toEqual(['is longer than 255 characters']);
    expect(metricNameProblems('render_ms', 's')).toEqual(['ends in "ms" but its unit is "s"; use "ms"']);
    expect(metricNameProblems('render.ms', '')).toEqual(['ends in "ms" but its unit is missing; use "ms"']);
    expect(metricNameProblems('upload_bytes', 'KB')).toEqual([
      'has unit "KB", which is not a known UCUM unit (ms, s, By, 1, %, {count}…)',
      'ends in "bytes" but its unit is "KB"; use "By"',
    ]);
    expect(isKnownUnit('By/s/s')).toBe(false);
    expect(isKnownUnit('{request}/s')).toBe(true);
  });
});
