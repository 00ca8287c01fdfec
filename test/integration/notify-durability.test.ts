import { afterAll, describe, expect, it } from 'vitest';
import { createTempDatabase, databaseKinds } from '../support/databases';
import { startReceiver, type Answer, type Received, type Receiver } from '../support/receiver';
import { outboxTime, type OutboxTime } from '../support/outbox-time';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import { eventually } from '../support/until';

/**
 * The notification outbox survives what happens to real server processes (issue 5, "Durable"): `svc-server start`
 * processes are SIGKILLed and restarted on the same database while deliveries wait for their time (escalation steps)
 * or for their retry, on SQLite and PostgreSQL; and two processes on one PostgreSQL database share due deliveries. A
 * local receiver counts what arrives by `webhook-id` (the delivery id, SPEC 3.1) and when.
 *
 * Nothing falls due while the machine runs the test's steps: deliveries are scheduled hours ahead and the test brings
 * them due (test/support/outbox-time.ts), so a kill always comes before what must wait for the restart, however loaded
 * the machine. Nothing here bounds how late a delivery may come either: what is checked is that nothing is sent before
 * its time (on the time the test drives), the order in which things are sent, and, to show that nothing more is sent,
 * a marker — a test delivery, which the outbox claims after every delivery due before it — that must come last.
 */
const kinds = await databaseKinds();

const SECRET_KEY = 'durability-test-secret-key-0123456789abc';
const HOUR_MS = 3_600_000;
/** When the two escalation steps of the restart test fall due, after the incident. */
const STEP1_MS = HOUR_MS;
const STEP2_MS = 2 * HOUR_MS;
/**
 * The paging receiver's Retry-After on its failed first attempt: its retry falls due after both steps, as in a
 * receiver's outage, rather than a minute later (SPEC 3.1's first retry), which a loaded machine could reach before
 * the kill.
 */
const PAGE_RETRY_AFTER_MS = 3 * HOUR_MS;

interface Delivery {
  id: string;
  channel_id: string;
  incident_id: string | null;
  state: string;
  attempt: number;
  next_attempt_at: string | null;
  response: { status: number | null; body: string | null } | null;
}
interface Arrival extends Received {
  atMs: number;
  webhookId: string;
}

// Whatever a test leaves running when it fails is stopped here; the processes first, so nothing writes to a dropped database.
const processes: ServerProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill()));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function startProcess(databaseUrl: string): Promise<ServerProcess> {
  const started = await startServerProcess({
    'database-url': databaseUrl,
    'secret-key': SECRET_KEY,
    'allow-private-targets': 'true',
  });
  processes.push(started);
  return started;
}

/** A receiver that notes when each request arrived (on the test's time), and the most requests it held open at once. */
async function startTimedReceiver(time: OutboxTime, answer: (path: string, earlier: Arrival[]) => Answer) {
  const receiver: Receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const arrivals: Arrival[] = [];
  const load = { open: 0, peak: 0 };
  receiver.answer = (request) => {
    const reply = answer(
      request.path,
      arrivals.filter((a) => a.path === request.path),
    );
    arrivals.push({ ...request, atMs: time.now(), webhookId: String(request.headers['webhook-id']) });
    load.peak = Math.max(load.peak, ++load.open);
    setTimeout(() => load.open--, reply.delayMs ?? 0);
    return reply;
  };
  return { url: receiver.url, arrivals, load };
}

/** The control-plane API of a process, with the control key of its database. */
function controlPlane(processUrl: string, controlKey: string) {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${processUrl}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    post: <T = { id: string }>(path: string, body: unknown) => call<T>('POST', path, body),
    /**
     * Sends a test delivery to `channelId` and resolves once its first attempt is recorded. The outbox claims due
     * deliveries oldest first, so every delivery due before this call has been claimed by then: anything left to send
     * (a duplicate) would have been sent with it or before it.
     */
    marker: (channelId: string) => call<Delivery>('POST', `/notifications/${channelId}/test`, {}),
    /** Every delivery of the project, page by page. */
    async deliveries(): Promise<Delivery[]> {
      const all: Delivery[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: Delivery[]; next_cursor: string | null } = await call(
          'GET',
          `/notifications/deliveries?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        );
        all.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return all;
    },
  };
}

const workerErrors = (p: ServerProcess) =>
  p
    .output()
    .split('\n')
    .filter((line) => /notification worker:|failed to record|taken over/.test(line));

describe('deliveries pending or retrying when the server is SIGKILLed', () => {
  // Both databases at once.
  it.concurrent.for(kinds)(
    'on %s: after a restart each is sent at its scheduled time, exactly once',
    { timeout: 90_000 },
    async (kind, { expect, onTestFinished }) => {
      const database = await createLastingDatabase(kind);
      // A concurrent test: its waits end with it through its own hook.
      const inThisTest = { onTestFinished };
      cleanups.push(() => database.drop());
      const time = outboxTime(database.url);
      // The paging channel's receiver is down for its first attempt, so at the kill that delivery waits for its retry.
      const receiver = await startTimedReceiver(time, (path, earlier) =>
        path === '/hook/page' && earlier.length === 0
          ? { status: 503, body: 'restarting', headers: { 'retry-after': String(PAGE_RETRY_AFTER_MS / 1000) } }
          : { status: 200, body: 'ok' },
      );
      const first = await startProcess(database.url);
      const controlKey = first.controlKey!;
      let api = controlPlane(first.url, controlKey);
      const channel = async (name: string) =>
        (
          await api.post('/notifications/channels', {
            type: 'webhook',
            name,
            config: { url: `${receiver.url}/hook/${name}` },
          })
        ).id;
      const page = await channel('page');
      const step1 = await channel('step1');
      const step2 = await channel('step2');
      const marker = await channel('marker');
      // Due in the order step 1, step 2, the page's retry, each only when the test brings it due.
      await api.post('/notifications/rules', { name: 'page at once', channels: [page] });
      await api.post('/notifications/rules', {
        name: 'escalate after an hour',
        channels: [step1],
        delay_seconds: STEP1_MS / 1000,
      });
      await api.post('/notifications/rules', {
        name: 'escalate after two hours',
        channels: [step2],
        delay_seconds: STEP2_MS / 1000,
      });
      const incident = await api.post<{ id: string; detected_at: string }>('/incidents', {
        title: 'Checkout fails',
        severity: 'critical',
        services: ['shop-web'],
      });
      const detectedMs = Date.parse(incident.detected_at);

      const byChannel = async () => new Map((await api.deliveries()).map((d) => [d.channel_id, d]));
      const before = await eventually(
        'the first attempt of the page to fail',
        async () => {
          const log = await byChannel();
          return log.get(page)?.state === 'retrying' ? log : undefined;
        },
        inThisTest,
      );
      expect(before.get(step1)).toMatchObject({
        state: 'scheduled',
        attempt: 0,
        next_attempt_at: new Date(detectedMs + STEP1_MS).toISOString(),
      });
      expect(before.get(step2)).toMatchObject({
        state: 'scheduled',
        attempt: 0,
        next_attempt_at: new Date(detectedMs + STEP2_MS).toISOString(),
      });
      expect(before.get(page)).toMatchObject({
        state: 'retrying',
        attempt: 1,
        response: { status: 503, body: 'restarting' },
      });
      const retryMs = Date.parse(before.get(page)!.next_attempt_at!);
      expect(retryMs - receiver.arrivals.find((a) => a.path === '/hook/page')!.atMs).toBeGreaterThanOrEqual(
        PAGE_RETRY_AFTER_MS,
      );

      await first.kill();
      expect(
        receiver.arrivals.map((a) => a.path),
        'killed before the first escalation step was sent',
      ).toEqual(['/hook/page']);
      // Still down when the first step falls due: it is overdue at the restart. The second falls due after.
      await time.advanceTo(detectedMs + STEP1_MS);
      // Taken before the start: the outbox may send before the banner is read.
      const restartedMs = time.now();
      const second = await startProcess(database.url);
      api = controlPlane(second.url, controlKey);
      // The schedule recorded before the kill (as the test moved it on) is the one the restarted process keeps.
      const restarted = await byChannel();
      const movedOn = (d: Delivery) => ({
        attempt: d.attempt,
        next_attempt_at: new Date(Date.parse(d.next_attempt_at!) - time.advancedMs()).toISOString(),
      });
      expect(restarted.get(page)).toMatchObject(movedOn(before.get(page)!));
      expect(restarted.get(step2)).toMatchObject(movedOn(before.get(step2)!));

      // Each of the rest is sent once the test brings it due, the restarted process polling for it.
      const arrivalsOf = (channelId: string) =>
        receiver.arrivals.filter((a) => a.webhookId === before.get(channelId)!.id).map((a) => a.atMs);
      const sent = (what: string, channelId: string) =>
        eventually(`${what} to be sent`, async () => (arrivalsOf(channelId).length > 0 ? true : undefined), inThisTest);
      await sent('the overdue first step', step1);
      await time.advanceTo(detectedMs + STEP2_MS);
      await sent('the second step', step2);
      await time.advanceTo(retryMs);
      const after = await eventually(
        'every delivery to complete',
        async () => {
          const log = await byChannel();
          return [...log.values()].every((d) => d.state === 'delivered') ? log : undefined;
        },
        inThisTest,
      );
      // Nothing more is sent: the marker is claimed after anything else that was due, and arrives last.
      const markerSent = await api.marker(marker);
      expect(markerSent).toMatchObject({ state: 'delivered', attempt: 1 });
      expect(receiver.arrivals.at(-1)?.webhookId, 'the marker came last').toBe(markerSent.id);

      // Counted by webhook-id: one request per escalation step; the page's failed attempt and its retry, nothing else.
      expect([
        arrivalsOf(page).length,
        arrivalsOf(step1).length,
        arrivalsOf(step2).length,
        receiver.arrivals.length,
      ]).toEqual([2, 1, 1, 5]);
      // Each is sent no sooner than its time, and in the order they fell due: the step overdue at the restart is sent
      // by the restarted process before the step that fell due later, which comes before the page's retry.
      const [step1At] = arrivalsOf(step1);
      const [step2At] = arrivalsOf(step2);
      const [, retriedAt] = arrivalsOf(page);
      expect(step1At).toBeGreaterThanOrEqual(Math.max(detectedMs + STEP1_MS, restartedMs));
      expect(step2At).toBeGreaterThanOrEqual(detectedMs + STEP2_MS);
      expect(step1At).toBeLessThan(step2At!);
      // The retry carries the delivery id of the failed attempt, at no sooner than the time recorded before the kill.
      expect(retriedAt).toBeGreaterThanOrEqual(retryMs);
      expect(step2At).toBeLessThan(retriedAt!);

      expect(after.get(step1)).toMatchObject({ state: 'delivered', attempt: 1, response: { status: 200, body: 'ok' } });
      expect(after.get(step2)).toMatchObject({ state: 'delivered', attempt: 1, response: { status: 200, body: 'ok' } });
      expect(after.get(page)).toMatchObject({ state: 'delivered', attempt: 2, response: { status: 200, body: 'ok' } });
      expect(after.size).toBe(3);
      expect([...workerErrors(first), ...workerErrors(second)]).toEqual([]);
      await second.stop();
    },
  );
});

describe.runIf(kinds.includes('postgres'))('two server processes on one PostgreSQL database', () => {
  it(
    'share a backlog left by a SIGKILLed process: each delivery is sent once, on time, and both processes send',
    { timeout: 90_000 },
    async () => {
      const INCIDENTS = 200;
      /** The outbox of one process holds at most this many attempts open at once (its default concurrency). */
      const PER_PROCESS = 32;
      /** None falls due while the first process runs, however long creating the incidents takes. */
      const DELAY_MS = HOUR_MS;
      const database = await createTempDatabase('postgres');
      cleanups.push(() => database.drop());
      const time = outboxTime(database.url);
      // Slow answers keep each process's attempts open, so the backlog stays for both to take; their spread (0.2 to 1 s)
      // ends attempts at many moments, and each end makes its process claim more: the two claim at once again and again.
      let answered = 0;
      const receiver = await startTimedReceiver(time, () => ({
        status: 200,
        body: 'ok',
        delayMs: 200 + ((answered++ * 337) % 800),
      }));
      const first = await startProcess(database.url);
      const controlKey = first.controlKey!;
      const api = controlPlane(first.url, controlKey);
      const hook = await api.post('/notifications/channels', {
        type: 'webhook',
        name: 'on call',
        config: { url: `${receiver.url}/hook/on-call` },
      });
      await api.post('/notifications/rules', {
        name: 'after an hour',
        channels: [hook.id],
        delay_seconds: DELAY_MS / 1000,
      });
      const marker = await api.post('/notifications/channels', {
        type: 'webhook',
        name: 'marker',
        config: { url: `${receiver.url}/hook/marker` },
      });
      const dueMs = new Map<string, number>();
      const createSome = async (lane: number) => {
        for (let i = lane; i < INCIDENTS; i += 8) {
          const incident = await api.post<{ id: string; detected_at: string }>('/incidents', {
            title: `Checkout fails #${i}`,
            severity: 'high',
            services: ['shop-web'],
          });
          dueMs.set(incident.id, Date.parse(incident.detected_at) + DELAY_MS);
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, lane) => createSome(lane)));
      await first.kill();
      expect(receiver.arrivals, 'killed before any delivery was due').toEqual([]);

      // Back once all are due, as two processes starting together: the whole backlog is there for both to claim.
      await time.advanceTo(Math.max(...dueMs.values()));
      const [a, b] = await Promise.all([startProcess(database.url), startProcess(database.url)]);
      const log = await eventually(`${INCIDENTS} deliveries to complete`, async () => {
        const deliveries = await controlPlane(b.url, controlKey).deliveries();
        return deliveries.length === INCIDENTS && deliveries.every((d) => d.state === 'delivered')
          ? deliveries
          : undefined;
      });
      // Nothing more is sent: a marker through each process is claimed after anything else that was due, and arrives last.
      for (const server of [a, b]) {
        const sent = await controlPlane(server.url, controlKey).marker(marker.id);
        expect(sent).toMatchObject({ state: 'delivered', attempt: 1 });
        expect(receiver.arrivals.at(-1)?.webhookId, 'the marker came last').toBe(sent.id);
      }
      const markers = receiver.arrivals.splice(INCIDENTS);
      expect(markers.map((r) => r.path)).toEqual(['/hook/marker', '/hook/marker']);

      expect(new Set(log.map((d) => d.incident_id))).toEqual(new Set(dueMs.keys()));
      expect(log.filter((d) => d.attempt !== 1)).toEqual([]);
      expect(receiver.arrivals).toHaveLength(INCIDENTS);
      expect(new Set(receiver.arrivals.map((r) => r.webhookId))).toEqual(new Set(log.map((d) => d.id)));
      const incidentOf = new Map(log.map((d) => [d.id, d.incident_id!]));
      expect(receiver.arrivals.filter((r) => r.atMs < dueMs.get(incidentOf.get(r.webhookId)!)!)).toEqual([]);
      // Each process holds at most its own limit of attempts open; more than one process's limit at once means both sent.
      expect(receiver.load.peak, 'requests open at once').toBeGreaterThan(PER_PROCESS);
      expect(receiver.load.peak, 'requests open at once').toBeLessThanOrEqual(2 * PER_PROCESS);
      expect([...workerErrors(first), ...workerErrors(a), ...workerErrors(b)]).toEqual([]);
      await Promise.all([a.stop(), b.stop()]);
    },
  );
});
