/**
 * The worker's whole program, kept as a string so that it can start from a `blob:` URL without a file of its own (the
 * same text is `dist/cdn/svc-replay-worker.js`, for `replay.workerUrl`). It receives `{i, e}`, an id and a chunk's
 * serialized events, delta-encodes the rrweb node ids of its snapshot events (wire/replay.ts `undoIdDeltas` is the
 * reverse, with the same walk), joins them into the chunk's JSON array, gzips that through `CompressionStream` and
 * answers `{i, d}` with the base64 text the chunk carries, or with no `d` when it cannot. Plain ES2018: it is not
 * compiled, and its names are short because it ships as they are.
 */
export const WORKER_SOURCE =
  'let L;const W=v=>{if(v&&typeof v=="object")for(const k in v){const x=v[k];' +
  'if(Number.isInteger(x)&&/^(?:id|parentId|nextId|previousId)$/.test(k)){v[k]=x-(L[k]||0);L[k]=x}else W(x)}};' +
  'onmessage=async({data:{i,e}})=>{let d;try{' +
  'const a=e.map(s=>{const v=JSON.parse(s);if(v.type!=2&&v.type!=3)return s;L={};W(v);return JSON.stringify(v)});' +
  'const b=new Uint8Array(await new Response(new Blob(["[",a.join(","),"]"]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());' +
  'let t="";for(let j=0;j<b.length;j+=32768)t+=String.fromCharCode.apply(null,b.subarray(j,j+32768));' +
  'd=btoa(t)}catch(x){}postMessage({i,d})}';

/**
 * Delta-encodes the node ids of one chunk's events (each already serialized), gzips and base64-encodes the chunk off
 * the main thread; `undefined` when the worker could not, and the caller sends the events as they are.
 */
export type EncodeChunkEvents = (events: readonly string[]) => Promise<string | undefined>;

/**
 * Starts the compression worker (from `workerUrl`, else from {@link WORKER_SOURCE} as a `blob:` URL) and returns the
 * encoder that uses it. Encoding a chunk's ids, compressing and base64-encoding it is then off the main thread, and
 * so is the chunk's joined text. A worker that cannot be created (no `Worker`, a Content-Security-Policy without
 * `blob:` in `worker-src`) or that fails to load or run (an `error` event: a blocked or missing `workerUrl`) is given
 * up for good: every chunk, those it was holding included, is answered `undefined`, so nothing is lost; the main
 * thread (the transport's gzip) and the bytes pay.
 */
export function startCompressionWorker(workerUrl: string | undefined): EncodeChunkEvents {
  const waiting = new Map<number, (data: string | undefined) => void>();
  let nextId = 0;
  let worker: Worker | undefined;
  const giveUp = (): void => {
    worker?.terminate();
    worker = undefined;
    for (const done of waiting.values()) done(undefined);
    waiting.clear();
  };
  try {
    // A classic worker's script needs no JavaScript MIME type: a plain Blob is enough.
    worker = new Worker(workerUrl ?? URL.createObjectURL(new Blob([WORKER_SOURCE])));
    worker.onmessage = ({ data }: MessageEvent<{ i: number; d?: string }>) => {
      const settle = waiting.get(data.i);
      settle?.(data.d);
      waiting.delete(data.i);
    };
    worker.onerror = giveUp;
  } catch {
    worker = undefined;
  }
  return (events) => {
    if (worker === undefined) return Promise.resolve(undefined);
    const id = nextId++;
    const sent = new Promise<string | undefined>((done) => waiting.set(id, done));
    worker.postMessage({ i: id, e: events });
    return sent;
  };
}
