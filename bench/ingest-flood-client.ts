/**
 * The flooding client of `bench/ingest.ts`'s flood phase (bench/ingest-flood.ts), in a process of its own, so its
 * requests never delay the normal key's, which the parent sends and times.
 *
 *   node --import tsx bench/ingest-flood-client.ts <server-url> <ingest-key> <connections>
 *
 * `connections` keep-alive connections each post the next 100-span batch as soon as the previous answer arrives. At the
 * first 429 (the key's burst used up) it prints `{"flooding":true}`; when stdin closes it stops, waits for the
 * requests in flight, and prints one JSON line (FloodResult) of the answers received from that 429 on.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { bodySource, singleSessionTemplate } from './ingest-bodies';
import { percentile, send, TRACES_PATH } from './ingest-load';

/** What the flood's answers were, from its first 429 until stdin closed. */
export interface FloodResult {
  seconds: number;
  /** Answers by HTTP status (0: the request failed). */
  statuses: Record<string, number>;
  /** Latency percentiles of every answer, and of the 429s alone, ms. */
  p50: number;
  p99: number;
  p50Refused: number;
  p99Refused: number;
}

const [url, ingestKey, connectionsArg] = process.argv.slice(2);
const connections = Number(connectionsArg);
if (!url || !ingestKey || !(connections > 0))
  throw new Error('usage: ingest-flood-client <url> <ingest-key> <connections>');

const target = { url, pid: 0, ingestKey };
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const nextBody = bodySource(Array.from({ length: 8 }, (_, i) => singleSessionTemplate(1_000 + i, 100)));
const latencies: number[] = [];
const refusedLatencies: number[] = [];
const statuses: Record<string, number> = {};
let started: number | undefined;
let stopping = false;

const worker = async () => {
  while (!stopping) {
    const t0 = performance.now();
    const { status, endMs } = await send(agent, target, { path: TRACES_PATH, body: nextBody().bytes });
    // Counted from the first refusal: the burst the key's bucket holds is accepted by design, before it.
    if (started === undefined) {
      if (status !== 429) continue;
      started = endMs;
      console.log(JSON.stringify({ flooding: true }));
    }
    if (stopping) break;
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(endMs - t0);
    if (status === 429) refusedLatencies.push(endMs - t0);
  }
};

const workers = Promise.all(Array.from({ length: connections }, worker));
createInterface({ input: process.stdin }).on('close', () => {
  stopping = true;
  const seconds = (performance.now() - (started ?? performance.now())) / 1000;
  void workers.then(() => {
    agent.destroy();
    const all = latencies.sort((a, b) => a - b);
    const refused = refusedLatencies.sort((a, b) => a - b);
    const result: FloodResult = {
      seconds,
      statuses,
      p50: percentile(all, 0.5),
      p99: percentile(all, 0.99),
      p50Refused: percentile(refused, 0.5),
      p99Refused: percentile(refused, 0.99),
    };
    console.log(JSON.stringify(result));
  });
});
