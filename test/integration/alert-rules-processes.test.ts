import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TempDatabase } from '../support/databases';
import { createEndpointRules } from '../support/endpoint-rules';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlCall, postIngest } from '../support/server';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import { eventually } from '../support/until';

/**
 * Issue 34, "two server processes on PostgreSQL fire each once", with real processes: two `svc-server start` of the
 * build on one PostgreSQL database, each running its own detection schedule (every 250 ms, so both look for due rules
 * several times a second and race for them), one webhook channel. Each rule opens one incident, the webhook hears of it
 * once, and it resolves once, also after both processes went on evaluating it. The rules' 10-second window (a test
 * server's `--alert-min-window-seconds`) is evaluated every second. The in-process twin with a moved clock, racing on
 * purpose: alert-rules-replicas.test.ts.
 */
const onPostgres = (await databaseKinds()).includes('postgres');
const SECRET = 'alert-processes-test-secret-0123456789abc';
const RULES = 4;
const WINDOW_SECONDS = 10;

type Rule = { id: string; state: string; last_evaluated_at: string | null; incident_id: string | null };
type Payload = { event: string; incident_id: string; title: string };

describe.runIf(onPostgres)('alert rules on two built server processes sharing PostgreSQL', () => {
  let database: TempDatabase;
  let processes: ServerProcess[] = [];
  let receiver: Receiver;
  let controlKey = '';
  let ingestKey = '';

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await controlCall<T>({ url: processes[0]!.url, controlKey }, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** `failing` and `passing` spans of each endpoint, ending now, through the second process. */
  const sendSpans = async (failing: number, passing: number) => {
    const endMs = Date.now();
    const span = (rule: number, code: number) => ({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      name: `GET /api/endpoint-${rule}`,
      kind: 3,
      startTimeUnixNano: `${endMs - 100}000000`,
      endTimeUnixNano: `${endMs}000000`,
      status: { code },
    });
    const codes = [...Array<number>(failing).fill(2), ...Array<number>(passing).fill(1)];
    const spans = Array.from({ length: RULES }, (_, rule) => codes.map((code) => span(rule, code))).flat();
    const resource = { attributes: [str('service.name', 'web-app')] };
    const body = { resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 't' }, spans }] }] };
    await postIngest({ url: processes[1]!.url, ingestKey }, '/otlp/v1/traces', JSON.stringify(body));
  };
  const payloads = (event: string) =>
    receiver.received.map((r) => JSON.parse(r.body) as Payload).filter((p) => p.event === event);
  const rules = async () => (await call<{ data: Rule[] }>('GET', '/alert-rules?limit=50')).data;

  beforeAll(async () => {
    database = await createLastingDatabase('postgres');
    const flags = {
      'database-url': database.url,
      'secret-key': SECRET,
      'allow-private-targets': 'true',
      'detection-interval-ms': '250',
      'alert-min-window-seconds': String(WINDOW_SECONDS),
    };
    // The first start makes the schema and the keys; the second joins the migrated database.
    const first = await startServerProcess(flags);
    processes = [first, await startServerProcess(flags)];
    controlKey = first.controlKey!;
    ingestKey = first.ingestKey!;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await receiver?.close();
    await database?.drop();
  });

  it('open one incident per firing rule, deliver it once, and resolve it once', async () => {
    await createEndpointRules(call, `${receiver.url}/hook`, RULES, WINDOW_SECONDS);
    // After the rules: however slow their creation, the failing spans are in the window the next evaluation reads.
    await sendSpans(2, 2);

    await eventually('a webhook notice of each rule opening its incident', async () =>
      payloads('incident.created').length >= RULES ? true : undefined,
    );
    const firing = await rules();
    expect(firing.map((r) => r.state)).toEqual(Array.from({ length: RULES }, () => 'firing'));
    const opened = firing.map((r) => r.incident_id);
    expect(new Set(payloads('incident.created').map((p) => p.incident_id))).toEqual(new Set(opened));

    // Healthy traffic brings each error rate to 2 in 16 at most: the rules recover at their next evaluation.
    await sendSpans(0, 12);
    await eventually('a webhook notice of each incident resolving', async () =>
      payloads('incident.resolved').length >= RULES ? true : undefined,
    );
    const resolvedAt = Date.now();
    // Both processes go on evaluating the recovered rules: nothing opens, resolves or is delivered again.
    await eventually('each rule evaluated again after its incident resolved', async () =>
      (await rules()).every((r) => r.last_evaluated_at !== null && Date.parse(r.last_evaluated_at) > resolvedAt)
        ? true
        : undefined,
    );
    expect(payloads('incident.created')).toHaveLength(RULES);
    expect(payloads('incident.resolved')).toHaveLength(RULES);
    expect(new Set(payloads('incident.resolved').map((p) => p.incident_id))).toEqual(new Set(opened));
    const incidents = (await call<{ data: Array<{ id: string; status: string }> }>('GET', '/incidents?limit=50')).data;
    expect(incidents.map((i) => i.id).sort()).toEqual([...opened].sort());
    expect(incidents.every((i) => i.status === 'resolved')).toBe(true);
    expect((await rules()).map((r) => r.state)).toEqual(Array.from({ length: RULES }, () => 'ok'));
  });
});
