/**
 * The worker's whole program, kept as a string so that it can start from a `blob:` URL without a file of its own (the
 * same text is `dist/cdn/svc-replay-worker.js`, for `replay.workerUrl`). It receives `{i, e}`, an id and a chunk's
 * serialized events, joins them into the chunk's JSON array, gzips that through `CompressionStream` and answers
 * `{i, d}` with the base64 text the chunk carries, or with no `d` when it cannot. Plain ES2018: it is not compiled,
 * and its names are short because it ships as they are.
 */
export const WORKER_SOURCE =
  'onmessage=async({data:{i,e}})=>{let d;try{' +
  'const b=new Uint8Array(await new Response(new Blob(["[",e.join(","),"]"]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());' +
  'let t="";for(let j=0;j<b.length;j+=32768)t+=String.fromCharCode.apply(null,b.subarray(j,j+32768));' +
  'd=btoa(t)}catch(x){}postMessage({i,d})}';

/**
 * Gzips and base64-encodes one chunk's events (each already serialized) off the main thread; `undefined` when the
 * worker could not, and the caller encodes the chunk itself.
 */
export type EncodeChunkEvents = (events: readonly string[]) => Promise<string | undefined>;

/**
 * Starts the compression worker (from `workerUrl`, else from {@link WORKER_SOURCE} as a `blob:` URL) and returns the
 * encoder that uses it. Joining, compressing and base64-encoding a chunk is then off the main thread, and so is the
 * chunk's joined text. A worker that cannot be created (no `Worker`, a Content-Security-Policy without `blob:` in
 * `worker-src`) or that fails to load or run (an `error` event: a blocked or missing `workerUrl`) is given up for
 * good: every chunk, those it was holding included, is answered `undefined`, so nothing is lost; only the main
 * thread pays.
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
      waiting.get(data.i)?.(data.d);
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
