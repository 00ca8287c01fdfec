import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationReport } from '../../server/src/alerts/evaluate/evaluator';
import { startServer, type RunningServer } from '../../server/src/index';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';
import { createEndpointRules } from '../support/endpoint-rules';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * Two server processes on one PostgreSQL database evaluate the same alert rules at the same moments (docs/alerts.md,
 * "Exactly once"): each rule is claimed by one of them at a time, so each opens one incident and the webhook hears of
 * each once, and each resolves once. Both run in this test process, each with its own pool, evaluator, lease owner and
 * notification outbox, on one moved clock; their runs are started together, again and again, with a small cap per
 * tick so that they race for the same due rules.
 */
const onPostgres = (await databaseKinds()).includes('postgres');
const RULES = 24;

describe.runIf(onPostgres)('alert rules on two server processes sharing PostgreSQL', () => {
  let database: TempDatabase;
  let servers: RunningServer[] = [];
  let receiver: Receiver;
  let now = Date.UTC(2026, 10, 30, 12, 0, 0);
  const clock = { now: () => now };
  let controlKey = '';

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${servers[0]!.url}/control-plane${path}`, {
      method,
      headers: { authorization: `Bearer ${controlKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return JSON.parse(text) as T;
  };
  /** A span error rate of `failing` in 4 for each of the endpoints, sent to the second process. */
  const sendSpans = async (failing: number) => {
    const spans = Array.from({ length: RULES }, (_, rule) =>
      Array.from({ length: 4 }, (_, i) => ({
        traceId: `${rule.toString(16).padStart(4, '0')}${i}${'a'.repeat(27)}`,
        spanId: `${rule.toString(16).padStart(4, '0')}${i}${'b'.repeat(11)}`,
        name: `GET /api/endpoint-${rule}`,
        kind: 3,
        startTimeUnixNano: `${now - 2000}000000`,
        endTimeUnixNano: `${now - 1900}000000`,
        status: { code: i < failing ? 2 : 1 },
      })),
    ).flat();
    const res = await fetch(`${servers[1]!.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': servers[0]!.bootstrap!.ingestKey.key },
      body: JSON.stringify({
        resourceSpans: [
          { resource: { attributes: [str('service.name', 'web-app')] }, scopeSpans: [{ scope: { name: 't' }, spans }] },
        ],
      }),
    });
    expect(res.status, await res.text()).toBe(200);
  };
  /** Both processes evaluate at once, again until neither finds a rule due; then both send what fell due. */
  const evaluateTogether = async () => {
    const reports: EvaluationReport[][] = [[], []];
    for (let round = 0; round < RULES; round++) {
      const both = await Promise.all(servers.map((s) => s.alerts.runOnce()));
      both.forEach((report, i) => reports[i]!.push(report));
      if (both.every((r) => r.evaluated.length === 0 && r.taken.length === 0)) break;
    }
    await Promise.all(servers.map((s) => s.notify.outbox.drain()));
    return reports.map((runs) => ({
      evaluated: runs.flatMap((r) => r.evaluated),
      opened: runs.flatMap((r) => r.opened),
      resolved: runs.flatMap((r) => r.resolved),
    }));
  };
  const events = (event: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as { event: string; incident_id: string })
      .filter((p) => p.event === event);

  beforeAll(async () => {
    database = await createTempDatabase('postgres');
    const options = {
      port: 0,
      databaseUrl: database.url,
      log: () => undefined,
      clock,
      detection: false as const,
      allowPrivateTargets: true,
      secretKey: 'r'.repeat(40),
      outbox: { pollMs: 60_000 },
      // A few rules per run: the two processes' runs overlap on the same due rules.
      alertEvaluation: { rulesPerTick: 5 },
    };
    const first = await startServer(options);
    servers = [first, await startServer(options)];
    controlKey = first.bootstrap!.controlKey.key;
    receiver = await startReceiver();
    await createEndpointRules(call, `${receiver.url}/hook`, RULES, 60);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await receiver?.close();
    await database?.drop();
  });

  it('fire each rule exactly once and resolve it exactly once, with both processes evaluating', async () => {
    await sendSpans(2);
    const fired = await evaluateTogether();
    const opened = fired.flatMap((r) => r.opened);
    expect(opened).toHaveLength(RULES);
    expect(new Set(opened).size).toBe(RULES);
    expect(
      fired.map((r) => r.evaluated.length).every((n) => n > 0),
      'both processes evaluated rules',
    ).toBe(true);
    expect(fired.flatMap((r) => r.evaluated).sort()).toEqual([...new Set(fired.flatMap((r) => r.evaluated))].sort());
    const created = events('incident.created');
    expect(created).toHaveLength(RULES);
    expect(new Set(created.map((p) => p.incident_id))).toEqual(new Set(opened));

    // Due again (a 60-second window is looked at every 10 seconds): still firing, nothing opens twice.
    now += 10_000;
    expect((await evaluateTogether()).flatMap((r) => r.opened)).toEqual([]);

    now += 60_000;
    await sendSpans(0);
    const recovered = await evaluateTogether();
    const resolved = recovered.flatMap((r) => r.resolved);
    expect(new Set(resolved)).toEqual(new Set(opened));
    expect(resolved).toHaveLength(RULES);
    expect(events('incident.resolved')).toHaveLength(RULES);
    expect(events('incident.created')).toHaveLength(RULES);
  });
});
