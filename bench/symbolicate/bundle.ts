import { build } from 'esbuild';
import { decodedMappings, TraceMap } from '@jridgewell/trace-mapping';
import { prng } from '../harness';

/**
 * What a large production web app ships: its own code (here this repository's browser SDK, src/: some hundred
 * TypeScript modules) and React and ReactDOM, session replay, the Sentry SDK, the OpenTelemetry web SDK and exporters,
 * a router and a query builder, validation, lodash, protobuf, JSON schema and compression, each exported whole so
 * nothing is tree-shaken away.
 */
const APP_ENTRY = './src/index';
const PACKAGES = [
  'react',
  'react-dom',
  'react-dom/client',
  '@rrweb/record',
  '@rrweb/replay',
  '@sentry/browser',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-web',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-logs',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/instrumentation-document-load',
  '@opentelemetry/instrumentation-user-interaction',
  '@opentelemetry/instrumentation-xml-http-request',
  'hono',
  'kysely',
  'zod',
  'lodash',
  'protobufjs',
  'ajv',
  'fflate',
];

export interface Bundle {
  code: string;
  map: string;
  packages: readonly string[];
}

/** Builds the bundle as a production build does: esbuild, minified, one file, an external map with sourcesContent. */
export async function buildBundle(root: string): Promise<Bundle> {
  const result = await build({
    stdin: {
      contents: [
        `export * as app from '${APP_ENTRY}';`,
        ...PACKAGES.map((p, i) => `export * as m${i} from '${p}';`),
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    sourcemap: 'external',
    sourcesContent: true,
    outfile: `${root}/dist/index.js`,
    write: false,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const text = (suffix: string) => result.outputFiles.find((f) => f.path.endsWith(suffix))!.text;
  return { code: text('index.js'), map: text('index.js.map'), packages: PACKAGES };
}

/** A 1-based line and column of the minified file, as a browser stack prints it. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Mapped positions of the bundle, `app` of them in the app's own sources and `dependencies` in node_modules, spread by
 * a seeded PRNG (the same frames every run): a stack as a real error has it, a few of the app's frames among a
 * framework's.
 */
export function pickPositions(map: string, app: number, dependencies: number): Position[] {
  const trace = new TraceMap(map);
  const ours: Position[] = [];
  const theirs: Position[] = [];
  decodedMappings(trace).forEach((segments, line) =>
    segments.forEach((s) => {
      const source = s[1] === undefined ? undefined : trace.sources[s[1]];
      if (source) (source.includes('node_modules/') ? theirs : ours).push({ line: line + 1, column: s[0] + 1 });
    }),
  );
  const random = prng(15);
  const pick = (from: Position[]) => from[Math.floor(random() * from.length)]!;
  return [
    ...Array.from({ length: app }, () => pick(ours)),
    ...Array.from({ length: dependencies }, () => pick(theirs)),
  ].sort(() => random() - 0.5);
}

/** A V8 stack of those positions in the script at `url`, as the SDK sends `exception.stacktrace`. */
export function v8Stack(url: string, positions: readonly Position[]): string {
  return [
    'TypeError: Cannot read properties of undefined',
    ...positions.map((p, i) => `    at f${i} (${url}:${p.line}:${p.column})`),
  ].join('\n');
}
