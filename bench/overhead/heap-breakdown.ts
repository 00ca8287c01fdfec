/**
 * `--heap-breakdown`: what svc's added JS heap is made of after a workload. A heap snapshot of svc's page and one of
 * the page without SDK, each after the same workload on unminified builds (whose local variable and class names
 * survive), and the retained size of each part of the SDK that holds memory while recording:
 *
 * - rrweb's mirror (`Mirror`: the id ↔ node maps), its mutation buffers (`MutationBuffer`: changes held while the
 *   DOM-change window freezes the recorder) and its other objects (instances of its other classes);
 * - the replay chunk buffers (src/replay/chunk-buffer.ts, `sealed` and `open` of each of the two made by
 *   src/replay/replay-buffers.ts): rrweb events, and recipe steps (request and response bodies and headers);
 * - the pipeline's queues of log, span and metric records waiting to be sent (src/pipeline/queue.ts, `waiting`);
 * - the on-error hold (src/replay/on-error-hold.ts, `held`: the previous window's events and steps);
 * - OpenTelemetry objects: instances of the classes of the `@opentelemetry/*` modules in the build and of svc's
 *   tracing (src/tracing/*: its spans, tracer and context manager implement `@opentelemetry/api`);
 * - code: scripts, their source text and compiled functions (larger than shipped: the build is not minified).
 *
 * Parts are found by the names above (a part whose anchor is not found says so rather than counting 0 silently:
 * a change to the SDK may rename them). Each node counts once, in the innermost part whose anchor dominates it;
 * "other" is the rest of the difference between the two snapshots.
 */
import type { VariantBuild } from './build';
import type { HeapGraph } from './heap-snapshot';
import { MODULE_START } from './profile';

/** A part of the heap: how to find the nodes that anchor it (each retains what it dominates). */
interface Part {
  name: string;
  /** Anchors, or a reason when what should anchor the part is not in the snapshot. */
  find(graph: HeapGraph, classes: BuildClasses): number[] | string;
}

/** Names of the classes defined by the build's modules of one kind (rrweb's, OpenTelemetry's). */
export interface BuildClasses {
  rrweb: ReadonlySet<string>;
  otel: ReadonlySet<string>;
}

/** Context nodes are named `system / Context / scope @<id>`. */
const CONTEXT = 'system / Context';

/** Function contexts (closure scopes) that hold every one of `variables`. */
function contextsWith(graph: HeapGraph, variables: readonly string[]): number[] {
  const found: number[] = [];
  for (const node of graph.order) {
    if (!graph.name[node]!.startsWith(CONTEXT)) continue;
    const names = new Set<string>();
    for (const edge of graph.edges(node)) if (edge.type === 'context') names.add(edge.name);
    if (variables.every((variable) => names.has(variable))) found.push(node);
  }
  return found;
}

/** The values of `variables` in the contexts holding all of `scope`. */
function captured(graph: HeapGraph, scope: readonly string[], variables: readonly string[]): number[] | string {
  const contexts = contextsWith(graph, scope);
  if (contexts.length === 0) return `no closure scope with ${scope.join(', ')}`;
  return contexts.flatMap((context) => variables.flatMap((name) => graph.edge(context, name, 'context') ?? []));
}

/** The scope of an object's methods: the context of the first closure among its properties. */
function methodScope(graph: HeapGraph, object: number): number | undefined {
  for (const edge of graph.edges(object))
    if (edge.type === 'property' && graph.type[edge.to] === 'closure') return graph.edge(edge.to, 'context');
  return undefined;
}

/** One of the two chunk buffers of the replay buffers (0: events, 1: recipe steps): its sealed and open chunks. */
function chunkBuffer(graph: HeapGraph, index: 0 | 1): number[] | string {
  const lists = captured(graph, ['buffers', 'budgetBytes'], ['buffers']);
  if (typeof lists === 'string') return lists;
  return lists.flatMap((list) => {
    const buffer = graph.edge(list, String(index), 'element');
    const scope = buffer === undefined ? undefined : methodScope(graph, buffer);
    return scope === undefined ? [] : ['sealed', 'open'].flatMap((name) => graph.edge(scope, name, 'context') ?? []);
  });
}

function instancesOf(graph: HeapGraph, names: ReadonlySet<string>): number[] | string {
  const found = graph.order.filter((node) => graph.type[node] === 'object' && names.has(graph.name[node]!));
  return found.length > 0 ? Array.from(found) : `no instance of ${[...names].join(', ')}`;
}

/** In this order: a node anchoring two parts counts in the later one (rrweb's mirror, not rrweb's other objects). */
const PARTS: readonly Part[] = [
  {
    name: "rrweb's other objects (instances of its classes: observers' state, style sheet mirror...)",
    find: (graph, classes) => instancesOf(graph, classes.rrweb),
  },
  { name: 'rrweb mirror (id ↔ node maps)', find: (graph) => instancesOf(graph, new Set(['Mirror'])) },
  {
    name: 'rrweb mutation buffers (changes held while frozen)',
    find: (graph) => instancesOf(graph, new Set(['MutationBuffer'])),
  },
  { name: 'replay chunk buffer: rrweb events', find: (graph) => chunkBuffer(graph, 0) },
  { name: 'replay chunk buffer: recipe steps (bodies, headers)', find: (graph) => chunkBuffer(graph, 1) },
  {
    name: 'pending log, span and metric batches',
    find: (graph) => captured(graph, ['waiting', 'inFlight', 'dropped'], ['waiting']),
  },
  { name: 'on-error hold', find: (graph) => captured(graph, ['held', 'erroredKey'], ['held']) },
  { name: 'OpenTelemetry objects', find: (graph, classes) => instancesOf(graph, classes.otel) },
  {
    name: 'code (scripts, source, compiled functions; unminified)',
    find: (graph) => Array.from(graph.order.filter((node) => graph.type[node] === 'code')),
  },
];

/** The classes rrweb's and the OpenTelemetry modules of the build define (by the unminified build's module comments). */
export function buildClasses(build: VariantBuild): BuildClasses {
  const rrweb = new Set<string>();
  const otel = new Set<string>();
  for (const file of build.files.values()) {
    let names: Set<string> | undefined;
    for (const line of file.code.split('\n')) {
      const module = MODULE_START.exec(line)?.[1];
      if (module)
        names = /\/vendor\/rrweb|node_modules\/@?rrweb/.test(module)
          ? rrweb
          : /node_modules\/@opentelemetry\/|dist\/esm\/tracing\//.test(module)
            ? otel
            : undefined;
      // `class Name {` or, as the bundler writes most classes, `var Name = class {`.
      const match = names ? /^\s*(?:export\s+)?(?:class\s+(\w+)|var\s+(\w+)\s*=\s*class\b)/.exec(line) : null;
      const name = match?.[1] ?? match?.[2];
      if (name) names!.add(name);
    }
  }
  return { rrweb, otel };
}

/** One snapshot's sizes: in total, per part, and the parts whose anchor was not found (with why). */
export interface HeapParts {
  totalBytes: number;
  parts: Map<string, number>;
  missing: Map<string, string>;
}

/** Attributes a snapshot's reachable nodes to the parts: each node to the innermost part anchor dominating it. */
export function heapParts(graph: HeapGraph, classes: BuildClasses): HeapParts {
  const label = new Int16Array(graph.nodeCount).fill(-1);
  const missing = new Map<string, string>();
  PARTS.forEach((part, index) => {
    const anchors = part.find(graph, classes);
    if (typeof anchors === 'string') missing.set(part.name, anchors);
    else for (const node of anchors) label[node] = index;
  });
  const sizes = new Float64Array(PARTS.length);
  // In reverse postorder a node's dominator comes before it: a node without a part of its own takes its dominator's.
  for (const node of graph.order) {
    if (node !== 0 && label[node] === -1) label[node] = label[graph.dominator[node]!]!;
    if (label[node]! >= 0) sizes[label[node]!]! += graph.selfSize[node]!;
  }
  return {
    totalBytes: graph.totalSize,
    parts: new Map(PARTS.map((part, index) => [part.name, sizes[index]!])),
    missing,
  };
}

const kb = (bytes: number) => (bytes / 1000).toFixed(0);

/** The breakdown table: one column per workload, svc's snapshot less the page's without SDK, KB. */
export function heapBreakdownTable(rows: ReadonlyArray<{ workload: string; svc: HeapParts; none: HeapParts }>): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const partRows = PARTS.map((part) =>
    line([
      part.name,
      ...rows.map(({ svc, none }) =>
        svc.missing.has(part.name)
          ? 'not found'
          : kb(svc.parts.get(part.name)! - (none.missing.has(part.name) ? 0 : none.parts.get(part.name)!)),
      ),
    ]),
  );
  const added = (r: (typeof rows)[number]) => r.svc.totalBytes - r.none.totalBytes;
  const inParts = (r: (typeof rows)[number]) =>
    PARTS.reduce(
      (sum, part) =>
        sum +
        (r.svc.missing.has(part.name) ? 0 : r.svc.parts.get(part.name)!) -
        (r.none.missing.has(part.name) ? 0 : r.none.parts.get(part.name)!),
      0,
    );
  const notes = rows.flatMap(({ workload, svc }) =>
    [...svc.missing].map(([part, why]) => `- ${workload}: ${part} not found (${why})`),
  );
  return [
    line(['retained KB, svc − none', ...rows.map((r) => r.workload)]),
    line(['---', ...rows.map(() => '---:')]),
    ...partRows,
    line(['other (the rest of the difference)', ...rows.map((r) => kb(added(r) - inParts(r)))]),
    line(['**added JS heap (snapshot)**', ...rows.map((r) => `**${kb(added(r))}**`)]),
    ...(notes.length > 0 ? ['', ...notes] : []),
  ].join('\n');
}
