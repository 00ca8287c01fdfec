import { performance } from 'node:perf_hooks';
import { serveLocally } from '../../test/support/local-server';

/** One webhook as it reached the receiver. */
export interface Arrival {
  /** `performance.now()` when its body was complete, on the benchmark process's clock. */
  atMs: number;
  incidentId: string;
}

/**
 * The webhook endpoint the server delivers to: answers every POST 200 at once and records when each arrived, keyed by
 * the payload's `incident_id`, and how often a `webhook-id` came twice (a duplicate send).
 */
export interface Receiver {
  url: string;
  arrivals: Arrival[];
  duplicates: number;
  /** The most recent request, as sent: the baseline replays it. */
  last: { headers: Record<string, string>; body: Buffer } | undefined;
  /** When `incidentId`'s webhook arrived (at once if it already has). */
  arrivalOf(incidentId: string, timeoutMs: number): Promise<number>;
  /** Resolves once `count` webhooks have arrived since the last reset. */
  waitForCount(count: number, timeoutMs: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const byIncident = new Map<string, number>();
  const waiting = new Map<string, (atMs: number) => void>();
  const seenIds = new Set<string>();
  let countWaiter: { count: number; resolve: () => void } | undefined;

  const record = (headers: Record<string, string>, body: Buffer) => {
    const atMs = performance.now();
    const webhookId = headers['webhook-id'] ?? '';
    if (seenIds.has(webhookId)) receiver.duplicates += 1;
    seenIds.add(webhookId);
    const incidentId = (JSON.parse(body.toString('utf8')) as { incident_id?: string }).incident_id ?? '';
    receiver.arrivals.push({ atMs, incidentId });
    receiver.last = { headers, body };
    if (!byIncident.has(incidentId)) byIncident.set(incidentId, atMs);
    waiting.get(incidentId)?.(atMs);
    if (countWaiter && receiver.arrivals.length >= countWaiter.count) countWaiter.resolve();
  };

  const server = await serveLocally((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      record(req.headers as Record<string, string>, Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });

  const receiver: Receiver = {
    url: `${server.origin}/hook`,
    arrivals: [],
    duplicates: 0,
    last: undefined,
    arrivalOf(incidentId, timeoutMs) {
      const known = byIncident.get(incidentId);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(incidentId);
          reject(new Error(`no webhook for ${incidentId} within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        waiting.set(incidentId, (atMs) => {
          clearTimeout(timer);
          waiting.delete(incidentId);
          resolve(atMs);
        });
      });
    },
    waitForCount(count, timeoutMs) {
      if (receiver.arrivals.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          countWaiter = undefined;
          reject(new Error(`${receiver.arrivals.length} of ${count} webhooks arrived within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        countWaiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            countWaiter = undefined;
            resolve();
          },
        };
      });
    },
    reset() {
      receiver.arrivals = [];
      receiver.duplicates = 0;
      byIncident.clear();
      seenIds.clear();
    },
    close: () => server.close(),
  };
  return receiver;
}
