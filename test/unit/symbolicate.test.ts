import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { parseDebugIds } from '../../server/src/sourcemaps/debug-ids';
import { enclosingFunction, functionScopes } from '../../server/src/sourcemaps/enclosing-function';
import { cleanSourcePath } from '../../server/src/sourcemaps/parsed-map';
import { findByDebugId, MapReplacedError, readSourceContent, storeMaps } from '../../server/src/sourcemaps/store';
import { createSymbolicator, parsedMapCache } from '../../server/src/sourcemaps/symbolicate';
import type { ExceptionFacts } from '../../server/src/sourcemaps/types';
import { createProject, createTenant } from '../../server/src/projects/store';

/** The app: an error thrown from a function nested in a second module, called through a class method. */
const SOURCES: Record<string, string> = {
  'src/main.ts': [
    "import { Checkout } from './checkout';",
    '',
    'export function run(prices: number[]): number {',
    '  return new Checkout().submit(prices);',
    '}',
  ].join('\n'),
  'src/checkout.ts': [
    "import { computeTotal } from './cart/total';",
    '',
    'export class Checkout {',
    '  submit(prices: number[]): number {',
    '    const total = computeTotal(prices);',
    '    return total;',
    '  }',
    '}',
  ].join('\n'),
  'src/cart/total.ts': [
    '/** Sums prices after their discount. */',
    'export function computeTotal(prices: number[]): number {',
    '  const label = "function decoy() {"; // function alsoDecoy() {',
    '  const applyDiscount = (price: number): number => {',
    '    if (price < 0) {',
    '      throw new Error(`negative price ${price} in ${label}`);',
    '    }',
    '    return price * 0.9;',
    '  };',
    '  let sum = 0;',
    '  prices.forEach((p) => {',
    '    sum += applyDiscount(p);',
    '  });',
    '  return sum;',
    '}',
  ].join('\n'),
};

const BUNDLE_URL = 'https://shop.example/assets/app-3f9a1c2b.js';
const DEBUG_ID = '4b0d7a52-6b1e-4c52-9d5e-3a1f0c2b8e71';

/** A real minified bundle of SOURCES and its map, made by esbuild from files on a virtual file system. */
async function bundle(): Promise<{ code: string; map: string }> {
  const result = await build({
    stdin: { contents: "export { run } from './src/main';", resolveDir: '/app', loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'iife',
    globalName: 'app',
    sourcemap: 'external',
    sourcesContent: true,
    outfile: '/app/dist/app.js',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'virtual',
        setup(b) {
          b.onResolve({ filter: /^\./ }, (args) => ({
            path: new URL(`${args.path}.ts`, `file://${args.resolveDir}/`).pathname,
            namespace: 'file',
          }));
          b.onLoad({ filter: /.*/ }, (args) => ({
            contents: SOURCES[args.path.replace('/app/', '')],
            loader: 'ts',
            resolveDir: args.path.replace(/\/[^/]*$/, ''),
          }));
        },
      },
    ],
  });
  const file = (suffix: string) => result.outputFiles.find((f) => f.path.endsWith(suffix))!.text;
  return { code: file('app.js'), map: file('app.js.map') };
}

/** The V8 stack of running the bundle as the browser would load it from BUNDLE_URL, without this test's own frames. */
function stackOf(code: string): string {
  const context: { app?: { run(prices: number[]): number } } = {};
  runInNewContext(code, context, { filename: BUNDLE_URL });
  try {
    context.app!.run([10, -1]);
  } catch (err) {
    return (err as Error)
      .stack!.split('\n')
      .filter((line, i) => i === 0 || line.includes(BUNDLE_URL) || line.includes('(<anonymous>)'))
      .join('\n');
  }
  throw new Error('the bundle did not throw');
}

/** 1-based line and column of `needle` in a source. */
function positionOf(file: string, needle: string): { line: number; column: number } {
  const lines = SOURCES[file]!.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return { line: line + 1, column: lines[line]!.indexOf(needle) + 1 };
}

describe('symbolication of a real esbuild bundle', () => {
  let database: DatabaseHandle;
  let projectId: string;
  let stack: string;
  let built: { code: string; map: string };
  const facts = (over: Partial<ExceptionFacts> = {}): ExceptionFacts => ({
    projectId,
    stacktrace: stack,
    debugIds: new Map([[BUNDLE_URL, DEBUG_ID]]),
    release: null,
    ...over,
  });

  beforeAll(async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database);
    projectId = await createProject(database.db, systemClock, await createTenant(database.db, systemClock, 't'), 'p');
    built = await bundle();
    stack = stackOf(built.code);
  });
  afterAll(() => database?.close());

  it('finds nothing before the map is uploaded, and the original positions once it is', async () => {
    const symbolicator = createSymbolicator({ db: database.db });
    const before = await symbolicator.symbolicate(facts());
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(before.every((f) => f.original === null)).toBe(true);
    expect(before.filter((f) => f.url === BUNDLE_URL).every((f) => f.debugId === DEBUG_ID && f.inApp)).toBe(true);

    await storeMaps(database.db, systemClock, projectId, [
      { debugId: DEBUG_ID, release: null, url: null, text: built.map },
    ]);
    const frames = await symbolicator.symbolicate(facts());
    const [top, ...rest] = frames.map((f) => f.original);
    const thrown = positionOf('src/cart/total.ts', 'new Error(');
    expect(top).toMatchObject({
      file: 'src/cart/total.ts',
      line: thrown.line,
      column: thrown.column,
      function: 'applyDiscount',
    });
    expect(top!.context).toEqual({
      startLine: thrown.line - 5,
      lines: SOURCES['src/cart/total.ts']!.split('\n').slice(thrown.line - 6, thrown.line + 5),
    });
    expect(top!.context!.lines[5]).toContain('throw new Error(');
    // The anonymous forEach callback belongs to computeTotal; then the method and the entry function.
    expect(rest.map((o) => o && `${o.function}@${o.file}:${o.line}`)).toEqual(
      expect.arrayContaining([
        `computeTotal@src/cart/total.ts:${positionOf('src/cart/total.ts', 'applyDiscount(p)').line}`,
        `submit@src/checkout.ts:${positionOf('src/checkout.ts', 'computeTotal(prices)').line}`,
        `run@src/main.ts:${positionOf('src/main.ts', 'submit(prices)').line}`,
      ]),
    );
    expect(frames[0]).toMatchObject({ url: BUNDLE_URL, line: 1, inApp: true, debugId: DEBUG_ID });
  });

  it('falls back to the release and URL for a map without a debug ID (stored as ~/path, any origin)', async () => {
    await storeMaps(database.db, systemClock, projectId, [
      { debugId: null, release: '1.4.0', url: '~/assets/app-3f9a1c2b.js', text: built.map },
    ]);
    const symbolicator = createSymbolicator({ db: database.db });
    const stagingUrl = BUNDLE_URL.replace('https://shop.example/', 'https://staging.shop.example/');
    const other = stack.replaceAll(BUNDLE_URL, stagingUrl);
    const [top] = await symbolicator.symbolicate(facts({ stacktrace: other, debugIds: new Map(), release: '1.4.0' }));
    expect(top!.original).toMatchObject({ file: 'src/cart/total.ts', function: 'applyDiscount' });
    const [unknownRelease] = await symbolicator.symbolicate(
      facts({ stacktrace: other, debugIds: new Map(), release: '1.3.9' }),
    );
    expect(unknownRelease!.original).toBeNull();
    // A file whose debug ID has no map: a map without ID under its release and URL serves; one under another ID does not.
    const unknownId = new Map([[stagingUrl, 'eeeeeeee-0b4d-4e5f-8a6b-7c8d9e0f1a2b']]);
    const [withoutId] = await symbolicator.symbolicate(
      facts({ stacktrace: other, debugIds: unknownId, release: '1.4.0' }),
    );
    expect(withoutId!.original).toMatchObject({ file: 'src/cart/total.ts' });
    await storeMaps(database.db, systemClock, projectId, [
      {
        debugId: 'ffffffff-0b4d-4e5f-8a6b-7c8d9e0f1a2b',
        release: '2.0.0',
        url: '~/assets/app-3f9a1c2b.js',
        text: built.map,
      },
    ]);
    const [otherBuild] = await symbolicator.symbolicate(
      facts({ stacktrace: other, debugIds: unknownId, release: '2.0.0' }),
    );
    expect(otherBuild!.original).toBeNull();
  });

  it('marks frames whose original source is a dependency as not in-app, and leaves unknown scripts unmapped', async () => {
    const vendored = built.map.replace('"../src/cart/total.ts"', '"../node_modules/cart/total.ts"');
    const id = '9c1e2f3a-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    await storeMaps(database.db, systemClock, projectId, [{ debugId: id, release: null, url: null, text: vendored }]);
    const frames = await createSymbolicator({ db: database.db }).symbolicate(
      facts({ stacktrace: `${stack}\n    at https://cdn.example/other.js:1:5`, debugIds: new Map([[BUNDLE_URL, id]]) }),
    );
    expect(frames[0]).toMatchObject({ inApp: false, original: { file: 'node_modules/cart/total.ts' } });
    expect(frames[frames.length - 1]).toMatchObject({
      url: 'https://cdn.example/other.js',
      inApp: true,
      original: null,
    });
  });

  it('reads index maps (sections) like plain ones', async () => {
    const id = '3a4b5c6d-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    const indexMap = {
      version: 3,
      sections: [{ offset: { line: 0, column: 0 }, map: JSON.parse(built.map) as unknown }],
    };
    await storeMaps(database.db, systemClock, projectId, [
      { debugId: id, release: null, url: null, text: JSON.stringify(indexMap) },
    ]);
    const [top] = await createSymbolicator({ db: database.db }).symbolicate(
      facts({ debugIds: new Map([[BUNDLE_URL, id]]) }),
    );
    const thrown = positionOf('src/cart/total.ts', 'new Error(');
    expect(top!.original).toMatchObject({
      file: 'src/cart/total.ts',
      line: thrown.line,
      column: thrown.column,
      function: 'applyDiscount',
    });
  });

  it('answers concurrent requests for one map alike, and never throws for a map it cannot read', async () => {
    const id = '1f2e3d4c-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    await storeMaps(database.db, systemClock, projectId, [{ debugId: id, release: null, url: null, text: built.map }]);
    const symbolicator = createSymbolicator({ db: database.db, cacheBytes: 1 });
    const [a, b] = await Promise.all(
      [1, 2].map(() => symbolicator.symbolicate(facts({ debugIds: new Map([[BUNDLE_URL, id]]) }))),
    );
    expect(a).toEqual(b);
    expect(a![0]!.original).not.toBeNull();
    const broken = 'aaaaaaaa-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    await storeMaps(database.db, systemClock, projectId, [
      { debugId: broken, release: null, url: null, text: built.map },
    ]);
    // A damaged row: what a failing disk or a bad restore leaves behind.
    await database.db
      .updateTable('sourcemaps')
      .set({ mappings_gzip: new Uint8Array([1, 2, 3]) })
      .where('debug_id', '=', broken)
      .execute();
    const frames = await symbolicator.symbolicate(facts({ debugIds: new Map([[BUNDLE_URL, broken]]) }));
    expect(frames.every((f) => f.original === null)).toBe(true);
  });

  it('tells a map without a source from a map replaced while it was read (its sources went with it)', async () => {
    const id = '2a3b4c5d-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    const stored = async () => {
      await storeMaps(database.db, systemClock, projectId, [
        { debugId: id, release: null, url: null, text: built.map },
      ]);
      return (await findByDebugId(database.db, projectId, id))!.id;
    };
    const first = await stored();
    expect(await readSourceContent(database.db, first, 0)).toEqual(expect.any(String));
    expect(await readSourceContent(database.db, first, 999)).toBeNull();
    const second = await stored();
    expect(second).not.toBe(first);
    await expect(readSourceContent(database.db, first, 0)).rejects.toBeInstanceOf(MapReplacedError);
    expect(await readSourceContent(database.db, second, 0)).toEqual(expect.any(String));
  });

  it("names a top-level frame by no function, not by the map's name at its call (the callee's)", async () => {
    const source = [
      'function checkStock(count: number): void {',
      '  if (count < 1) throw new Error("out of stock");',
      '}',
      'checkStock(0);',
    ].join('\n');
    const result = await build({
      stdin: { contents: source, sourcefile: 'src/boot.ts', loader: 'ts' },
      minify: true,
      format: 'iife',
      sourcemap: 'external',
      sourcesContent: true,
      outfile: '/app/dist/boot.js',
      write: false,
      logLevel: 'silent',
    });
    const output = (suffix: string) => result.outputFiles.find((f) => f.path.endsWith(suffix))!.text;
    // Both frames name `checkStock` in the map: the function's own name, and the callee of the top-level call.
    expect((JSON.parse(output('boot.js.map')) as { names: string[] }).names).toContain('checkStock');
    let stacktrace = '';
    try {
      runInNewContext(output('boot.js'), {}, { filename: BUNDLE_URL });
    } catch (err) {
      stacktrace = (err as Error).stack!;
    }
    const id = '2a3b4c5d-0b4d-4e5f-8a6b-7c8d9e0f1a2b';
    await storeMaps(database.db, systemClock, projectId, [
      { debugId: id, release: null, url: null, text: output('boot.js.map') },
    ]);
    const frames = await createSymbolicator({ db: database.db }).symbolicate(
      facts({ stacktrace, debugIds: new Map([[BUNDLE_URL, id]]) }),
    );
    // The thrower, then the top-level call (then the bundle's IIFE wrapper).
    expect(frames.slice(0, 2).map((f) => f.original && [f.original.function, f.original.line])).toEqual([
      ['checkStock', 2],
      [null, 4],
    ]);
  });
});

describe('enclosing function scanner', () => {
  const nameAt = (src: string, marker: string) => enclosingFunction(functionScopes(src) ?? [], src.indexOf(marker));

  it('names function declarations, methods, and functions assigned to a name', () => {
    const src = [
      'function* gen() { yield HERE_GEN; }',
      'class Cart { total(items: Item[]): Promise<Map<string, number[]>> { return HERE_METHOD; } #secret() { HERE_PRIVATE } }',
      'const arrow = async <T,>(x: T): Promise<T> => { HERE_ARROW };',
      'const expr = (y) => HERE_EXPR, single = z => HERE_SINGLE;',
      'const typed: Handler = (e) => { HERE_TYPED };',
      'obj.handler = function () { HERE_ASSIGNED };',
      'const o = { prop: function () { HERE_PROP }, short() { HERE_SHORT }, named: function inner() { HERE_INNER } };',
      'class Button { onClick = () => { HERE_FIELD }; }',
      'export const Cart: React.FC<Props<Item[]>> = ({ items }) => { HERE_COMPONENT };',
      'export default function App() { useEffect(() => { HERE_EFFECT }, []); }',
    ].join('\n');
    expect(nameAt(src, 'HERE_GEN')).toBe('gen');
    expect(nameAt(src, 'HERE_METHOD')).toBe('total');
    expect(nameAt(src, 'HERE_PRIVATE')).toBe('secret');
    expect(nameAt(src, 'HERE_ARROW')).toBe('arrow');
    expect(nameAt(src, 'HERE_EXPR')).toBe('expr');
    expect(nameAt(src, 'HERE_SINGLE')).toBe('single');
    expect(nameAt(src, 'HERE_TYPED')).toBe('typed');
    expect(nameAt(src, 'HERE_ASSIGNED')).toBe('handler');
    expect(nameAt(src, 'HERE_PROP')).toBe('prop');
    expect(nameAt(src, 'HERE_SHORT')).toBe('short');
    expect(nameAt(src, 'HERE_INNER')).toBe('inner');
    expect(nameAt(src, 'HERE_FIELD')).toBe('onClick');
    expect(nameAt(src, 'HERE_COMPONENT')).toBe('Cart');
    expect(nameAt(src, 'HERE_EFFECT')).toBe('App');
  });

  it('is not fooled by strings, comments, templates, regular expressions or control blocks', () => {
    const src = [
      'function outer() {',
      '  const s = "function fake() { \\" }";',
      "  const t = 'x() {';",
      '  // function commented() {',
      '  /* method() { */',
      '  const tpl = `function inTemplate() { ${ value(() => 1) } }`;',
      '  const re = /function\\s+re\\(\\)\\s*{[}]/g;',
      '  if (ready) { while (x) { for (;;) { switch (y) { default: HERE_BLOCK } } } }',
      '  try { HERE_TRY } catch (e) { HERE_CATCH }',
      '  list.forEach((item) => { HERE_CALLBACK });',
      '  return 1 / 2 / HERE_DIVISION;',
      '}',
      'const after = () => { HERE_AFTER };',
    ].join('\n');
    for (const marker of ['HERE_BLOCK', 'HERE_TRY', 'HERE_CATCH', 'HERE_CALLBACK', 'HERE_DIVISION'])
      expect(nameAt(src, marker)).toBe('outer');
    expect(nameAt(src, 'HERE_AFTER')).toBe('after');
    expect(functionScopes(src)?.map((s) => s.name)).toEqual(['outer', 'after']);
  });

  it('ends an expression-bodied arrow at its line, separator or enclosing bracket', () => {
    const src = 'const f = (a) => a + 1\nHERE_OUTSIDE;\nfoo((b) => b, HERE_ARG);';
    expect(nameAt(src, 'a + 1')).toBe('f');
    expect(nameAt(src, 'HERE_OUTSIDE')).toBeNull();
    expect(nameAt(src, 'HERE_ARG')).toBeNull();
  });

  // Cases the hand-written tokenizer this parser replaced got wrong (regular expression or division, JSX, quoted and
  // parenthesised names), and the other shapes a name comes from.
  const CASES: Array<[string, string[], Record<string, string | null>]> = [
    [
      'a regular expression after ) and }',
      [
        'function a(s) {',
        '  if (s) /}/.test(s);',
        '  if (s) {}',
        '  /}/.test(s);',
        '  return HERE_A;',
        '}',
        'function b() { HERE_B }',
      ],
      { HERE_A: 'a', HERE_B: 'b' },
    ],
    [
      'division after keyword-named properties, ) and }',
      [
        'function a(x) {',
        '  const r = (x + 1) / 2 / (x - 1), s = { k: x }.k / 2 / { k: 1 }.k;',
        '  return HERE_A;',
        '}',
        'const c = size.in / 2; function b() { HERE_B } // /',
      ],
      { HERE_A: 'a', HERE_B: 'b' },
    ],
    [
      'templates with nested braces and templates',
      [
        'function a(x) {',
        '  const t = `${ { k: `}${"{"}` }.k } } ${ x ? `{` : "}" } {`;',
        '  return HERE_A;',
        '}',
        'function b() { HERE_B }',
      ],
      { HERE_A: 'a', HERE_B: 'b' },
    ],
    [
      'class fields, accessors, constructors, static, private and quoted methods',
      [
        'class Cart {',
        '  static count = 0;',
        '  total = () => HERE_FIELD;',
        '  #items: Item[] = [];',
        '  constructor() { HERE_CTOR }',
        '  get size(): number { return HERE_GET; }',
        '  set size(n: number) { HERE_SET }',
        '  static async *all() { HERE_STATIC }',
        '  async #load<T>(url: string): Promise<T> { HERE_PRIVATE }',
        '  "quoted-name"() { HERE_QUOTED }',
        '}',
      ],
      {
        HERE_FIELD: 'total',
        HERE_CTOR: 'constructor',
        HERE_GET: 'size',
        HERE_SET: 'size',
        HERE_STATIC: 'all',
        HERE_PRIVATE: 'load',
        HERE_QUOTED: 'quoted-name',
      },
    ],
    [
      'object-literal methods and getters',
      [
        'const api = {',
        '  get ready() { return HERE_GET; },',
        '  async fetch(u) { HERE_METHOD },',
        '  *[Symbol.iterator]() { HERE_COMPUTED },',
        '  nested: { deep: (x) => HERE_DEEP },',
        '};',
      ],
      { HERE_GET: 'ready', HERE_METHOD: 'fetch', HERE_COMPUTED: null, HERE_DEEP: 'deep' },
    ],
    [
      'arrows assigned to variables and properties',
      [
        'let handler;',
        'handler = async (e) => { HERE_VAR };',
        'this.onTick = () => HERE_THIS;',
        'module.exports.run = (() => { HERE_PAREN }) as Runner;',
        'const cb = useCallback(() => { HERE_CALL }, []);',
        'window["x"] = () => { HERE_ELEMENT };',
      ],
      { HERE_VAR: 'handler', HERE_THIS: 'onTick', HERE_PAREN: 'run', HERE_CALL: null, HERE_ELEMENT: null },
    ],
    [
      'JSX left by a build',
      [
        'export function List({ items }) {',
        "  const el = <ul className='a/b'>{items.map((i) => <li key={i} onClick={() => { HERE_CLICK }}>{i}</li>)}</ul>;",
        '  return HERE_LIST;',
        '}',
        'function After() { return <p>Don\'t {"}"} stop/go</p>; }',
        'function Later() { HERE_LATER }',
      ],
      { HERE_CLICK: 'List', HERE_LIST: 'List', HERE_LATER: 'Later' },
    ],
  ];
  it.each(CASES)('names functions around %s', (_title, lines, expected) => {
    const src = lines.join('\n');
    const scopes = functionScopes(src, 'src/app.tsx') ?? [];
    const names = Object.fromEntries(Object.keys(expected).map((m) => [m, enclosingFunction(scopes, src.indexOf(m))]));
    expect(names).toEqual(expected);
  });

  it('reads a source as its extension says: TypeScript casts in .ts, JSX in .js', () => {
    const ts = 'function a(x) { const n = <number>x; return HERE_TS; }\nfunction b() { HERE_B }';
    const tsScopes = functionScopes(ts, 'src/a.ts') ?? [];
    expect(['HERE_TS', 'HERE_B'].map((m) => enclosingFunction(tsScopes, ts.indexOf(m)))).toEqual(['a', 'b']);
    const jsx = 'function View() { return <p>{"}"}</p>; }\nfunction after() { HERE_JS }';
    expect(enclosingFunction(functionScopes(jsx, 'dist/view.js') ?? [], jsx.indexOf('HERE_JS'))).toBe('after');
  });

  it('never throws on broken source', () => {
    for (const src of ['function (', '`unterminated ${', '"unterminated', '/* open', '}}}) => {', 'a = /[/']) {
      expect(() => functionScopes(src)).not.toThrow();
    }
    // Nested deeper than the parser recurses: no scopes, so the map's names are used.
    expect(functionScopes('('.repeat(20_000))).toBeNull();
  });
});

describe('cleanSourcePath', () => {
  it("reads webpack's and Turbopack's source names as paths from the project (Turbopack's: from its root)", () => {
    expect(cleanSourcePath('webpack://_N_E/./app/coupons.ts')).toBe('app/coupons.ts');
    expect(cleanSourcePath('turbopack:///[project]/app/coupons.ts')).toBe('app/coupons.ts');
    expect(cleanSourcePath('turbopack:///[project]/apps/web/node_modules/next/dist/client/index.js')).toBe(
      'apps/web/node_modules/next/dist/client/index.js',
    );
    expect(cleanSourcePath('turbopack:///[turbopack]/browser/runtime/base/runtime-base.ts')).toBe(
      '[turbopack]/browser/runtime/base/runtime-base.ts',
    );
    expect(cleanSourcePath('../../src/cart.ts')).toBe('src/cart.ts');
  });
});

describe('parsed-map cache', () => {
  it('evicts the least recently used entries by bytes, and keeps nothing larger than its cap', () => {
    const lru = parsedMapCache<{ bytes: number; name: string }>(100);
    const sized = (name: string, bytes: number) => ({ name, bytes });
    lru.set('a', sized('A', 60));
    lru.set('b', sized('B', 30));
    expect(lru.get('a')?.name).toBe('A');
    lru.set('c', sized('C', 40));
    expect([lru.get('a')?.name, lru.get('b')?.name, lru.get('c')?.name]).toEqual(['A', undefined, 'C']);
    expect(lru.calculatedSize).toBe(100);
    lru.set('huge', sized('H', 101));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.calculatedSize).toBe(100);
    lru.set('a', sized('A2', 10));
    expect([lru.get('a')?.name, lru.calculatedSize]).toEqual(['A2', 50]);
  });
});

describe('parseDebugIds', () => {
  it('maps each script URL to its debug ID and skips malformed entries', () => {
    const ids = parseDebugIds([
      `${DEBUG_ID} ${BUNDLE_URL}`,
      `${DEBUG_ID.toUpperCase().replace('4B0D', '5B0D')} https://shop.example/assets/b.js`,
      'not-a-uuid https://x/a.js',
      `${DEBUG_ID}`,
      42,
    ]);
    expect([...ids]).toEqual([
      [BUNDLE_URL, DEBUG_ID],
      ['https://shop.example/assets/b.js', DEBUG_ID.replace('4b0d', '5b0d')],
    ]);
    expect(parseDebugIds('nope').size).toBe(0);
  });
});
