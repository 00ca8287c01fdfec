/**
 * Builds the workload page once per variant with Vite's JavaScript API, as a production app would ship it: minified
 * (or not, for `--profile`, whose summaries need module boundaries), relative asset URLs, and `@svc/browser` resolved
 * to the built SDK (`dist/esm/index.js`) the way an installed package resolves. Builds stay in memory.
 */
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Rolldown } from 'vite';

/**
 * The bench's variants, one page entry each (bench/overhead/page/<variant>.ts): the baseline without SDK; svc,
 * Sentry and Datadog with session replay (issues 4 and 16, run by default); svc and Sentry without replay (issue 3's,
 * on request); `svc-baseline`, svc's page on another build of the SDK (`--baseline-dist`), to compare a change with
 * the build before it in the same runs.
 */
export const VARIANTS = [
  'none',
  'svc',
  'sentry',
  'datadog',
  'svc-no-replay',
  'sentry-no-replay',
  'svc-baseline',
] as const;
export type Variant = (typeof VARIANTS)[number];

/** What `npm run bench:overhead` runs without `--variants`. */
export const DEFAULT_VARIANTS: readonly Variant[] = ['none', 'svc', 'sentry', 'datadog'];

/** Most svc may cost as a share of the peer's: added main-thread and script time, bytes sent, added JS heap. */
export interface Targets {
  time: number;
  bytes: number;
  heap: number;
}

/** A pair compared in the verdict, ours first, when both variants ran, with the issue that set its targets. */
export interface Comparison {
  ours: Variant;
  theirs: Variant;
  peer: string;
  issue: number;
  targets: Targets;
}

export const COMPARISONS: readonly Comparison[] = [
  { ours: 'svc', theirs: 'sentry', peer: 'Sentry', issue: 4, targets: { time: 0.5, bytes: 0.5, heap: 0.5 } },
  { ours: 'svc', theirs: 'datadog', peer: 'Datadog', issue: 16, targets: { time: 0.5, bytes: 0.5, heap: 1 } },
  {
    ours: 'svc-no-replay',
    theirs: 'sentry-no-replay',
    peer: 'Sentry',
    issue: 3,
    targets: { time: 0.5, bytes: 0.5, heap: Infinity },
  },
];

/** One emitted JavaScript file, with its gzip (level 9) encoding, which is what the bench server sends. */
export interface BuiltFile {
  code: string;
  gzip: Buffer;
}

/** A variant's build: its JavaScript files by path relative to the page (`assets/<name>.js`), and the entry's. */
export interface VariantBuild {
  variant: Variant;
  entry: string;
  files: Map<string, BuiltFile>;
}

const PAGE_DIR = join(import.meta.dirname, 'page');

/**
 * Builds one variant; `root` is the repository root (for `dist/esm`), `baselineDist` the `dist` directory
 * `svc-baseline` uses (a copy of an earlier build).
 */
export async function buildVariant(
  root: string,
  variant: Variant,
  minify: boolean,
  baselineDist?: string,
): Promise<VariantBuild> {
  const baseline = variant === 'svc-baseline';
  if (baseline && baselineDist === undefined)
    throw new Error('the svc-baseline variant needs --baseline-dist <dist directory>');
  const dist = baseline ? baselineDist! : join(root, 'dist');
  const { build } = await import('vite');
  const result = await build({
    root: PAGE_DIR,
    configFile: false,
    envDir: false,
    publicDir: false,
    mode: 'production',
    logLevel: 'warn',
    base: './',
    resolve: { alias: { '@svc/browser': join(dist, 'esm', 'index.js') } },
    build: {
      write: false,
      minify,
      rolldownOptions: { input: join(PAGE_DIR, `${baseline ? 'svc' : variant}.ts`) },
    },
  });
  if (!('output' in result)) throw new Error(`expected one Vite output for ${variant}`);
  const chunks = result.output.filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
  const entry = chunks.find((chunk) => chunk.isEntry);
  if (!entry) throw new Error(`no entry chunk for ${variant}`);
  const files = new Map<string, BuiltFile>();
  for (const chunk of chunks) files.set(chunk.fileName, { code: chunk.code, gzip: gzipSync(chunk.code, { level: 9 }) });
  return { variant, entry: entry.fileName, files };
}
