/**
 * `--profile`: where a variant's main-thread JavaScript time goes. The profiled run uses an unminified build, in which
 * Vite starts each module's code with a `// <path>` comment line, so every line maps back to its source module;
 * sampled self time is summed per module and per owner (svc's own code, each npm package, the workload app).
 * Built-in functions (`JSON.stringify`, `fetch`, the console's) are listed by name on their own rather than charged to
 * their JavaScript caller: the app's own `fetch` and `console` calls run inside the SDKs' wrappers, and charging them
 * to the wrapper would bill the SDK for the app's work.
 */
import type { VariantBuild } from './build';

/** CPU profile as returned by the DevTools protocol's `Profiler.stop`. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }>;
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** Self time of one module or owner, ms. */
export interface ProfileEntry {
  name: string;
  ms: number;
}

/** A profile summarised: busy time (idle excluded), split per source module, per owner and per SDK function. */
export interface ProfileSummary {
  busyMs: number;
  modules: ProfileEntry[];
  owners: ProfileEntry[];
  /** Functions of svc or of an npm package (not the workload, not the browser), by self time. */
  sdkFunctions: ProfileEntry[];
}

/** A module's first line in an unminified Vite build: `// node_modules/pkg/file.js`, `// dist/esm/x.js`, ... */
export const MODULE_START = /^\/\/ (\S*\/\S+\.(?:[cm]?js|tsx?))$/;

/** Where a bundle line comes from: its source module, and the line's offset from the module's start (≈ its line there). */
interface LineOrigin {
  path: string;
  line: number;
}

/** Per bundle file, the origin of each line (0-based index). */
function moduleIndex(build: VariantBuild): Map<string, LineOrigin[]> {
  const index = new Map<string, LineOrigin[]>();
  for (const [name, file] of build.files) {
    const origins: LineOrigin[] = [];
    let current = { path: '(bundle runtime)', start: 0 };
    file.code.split('\n').forEach((text, i) => {
      const path = MODULE_START.exec(text)?.[1];
      if (path) current = { path, start: i };
      origins.push({ path: current.path, line: i - current.start });
    });
    index.set(name, origins);
  }
  return index;
}

/** `node_modules/@scope/pkg/<file>` → `@scope/pkg/<file>`; the built SDK → `svc: <file>`; the workload → `app: <file>`. */
function moduleName(path: string): string {
  if (path.startsWith('\0')) return '(bundle runtime)';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  if (dependency) return `${dependency[1]}/${dependency[2]}`;
  const sdk = /dist\/esm\/(.*)$/.exec(path);
  if (sdk) return `svc: ${sdk[1]}`;
  return `app: ${path.replace(/^.*\//, '')}`;
}

function ownerOf(module: string): string {
  if (module.startsWith('(native) ')) return '(native functions)';
  if (module.startsWith('svc: ')) return 'svc (own code)';
  if (module.startsWith('app: ')) return 'workload app';
  if (module.startsWith('(')) return module;
  const dependency = /^((?:@[^/]+\/)?[^/]+)\//.exec(module);
  return dependency?.[1] ?? module;
}

const sortedEntries = (map: Map<string, number>): ProfileEntry[] =>
  [...map].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);

/** Summarises a profile taken of a page running `build` (an unminified build). */
export function summarizeProfile(profile: CpuProfile, build: VariantBuild): ProfileSummary {
  const modulesByLine = moduleIndex(build);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));

  const cache = new Map<number, { module: string; fn: string } | undefined>();
  /** The module (and function) a node's self time is charged to; undefined for idle time. */
  const charge = (id: number): { module: string; fn: string } | undefined => {
    if (cache.has(id)) return cache.get(id);
    const node = byId.get(id);
    let result: { module: string; fn: string } | undefined;
    const named = (module: string) => ({ module, fn: module });
    if (!node || node.callFrame.functionName === '(idle)') result = undefined;
    else if (node.callFrame.functionName === '(garbage collector)') result = named('(garbage collection)');
    else if (node.callFrame.functionName === '(program)') result = named('(browser: style, layout, paint, input)');
    else if (
      node.callFrame.url &&
      node.callFrame.functionName === '' &&
      node.callFrame.lineNumber === 0 &&
      node.callFrame.columnNumber === 0
    ) {
      // The script's own top level: evaluating every module of the bundle, not the first module's code.
      result = named('(bundle evaluation, top level)');
    } else if (node.callFrame.url) {
      const file = node.callFrame.url.replace(/^https?:\/\/[^/]+\/r\/\d+\/[a-z-]+\//, '').replace(/[?#].*$/, '');
      const origin = modulesByLine.get(file)?.[node.callFrame.lineNumber];
      const module =
        origin === undefined ? '(other scripts)' : origin.path.startsWith('(') ? origin.path : moduleName(origin.path);
      result = { module, fn: `${node.callFrame.functionName || '(anonymous)'} (${module}:~${origin?.line ?? 0})` };
    } else {
      result = named(`(native) ${node.callFrame.functionName || 'anonymous'}`);
    }
    cache.set(id, result);
    return result;
  };

  const modules = new Map<string, number>();
  const owners = new Map<string, number>();
  const sdkFunctions = new Map<string, number>();
  let busyMs = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => {
    const charged = charge(id);
    // A sample's delta is the time since the previous sample; it belongs to the next one's node. The shift is one
    // sampling interval (0.1 ms) and evens out.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    if (charged === undefined) return;
    busyMs += ms;
    modules.set(charged.module, (modules.get(charged.module) ?? 0) + ms);
    const owner = ownerOf(charged.module);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
    if (owner !== 'workload app' && !owner.startsWith('('))
      sdkFunctions.set(charged.fn, (sdkFunctions.get(charged.fn) ?? 0) + ms);
  });
  return {
    busyMs,
    modules: sortedEntries(modules),
    owners: sortedEntries(owners),
    sdkFunctions: sortedEntries(sdkFunctions),
  };
}
