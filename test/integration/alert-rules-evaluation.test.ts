import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuleEvidence } from '../../server/src/incidents/types';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlCall, controlGet, postIngest, startNotifyingServer, type TestServer } from '../support/server';

/**
 * Alert rule evaluation (docs/alerts.md, "Evaluation") on the real server over HTTP, on SQLite and PostgreSQL: rules
 * made through the API, Web Vitals and metric points sent to ingest, the evaluator run at moved clock times as the
 * detection schedule runs it, and its incidents reaching a webhook channel through the ordinary notification rules.
 */
const kinds = await databaseKinds();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

interface Rule {
  id: string;
  state: string;
  last_value: number | null;
  incident_id: string | null;
}
interface Incident {
  id: string;
  title: string;
  status: string;
  severity: string;
  env: string;
  services: string[];
  root_cause_summary: string;
  resolved_by: string | null;
  dashboard_url: string;
  evidence: RuleEvidence;
}
type Payload = { event: string; incident_id: string; title: string; severity: string; root_cause_summary: string };

const nanos = (ms: number) => `${ms}000000`;

describe.each(kinds)('alert rule evaluation on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let now = Date.UTC(2026, 10, 30, 12, 0, 0);
  const clock = { now: () => now };

  /**
   * One gauge point per value of the app's metric `name`, a millisecond apart before `atMs` (default: a second ago: a
   * window ends just before its evaluation's time), on `path`.
   */
  const sendPoints = (name: string, values: number[], p: { path?: string; atMs?: number } = {}) =>
    postIngest(
      t,
      '/otlp/v1/metrics',
      JSON.stringify({
        resourceMetrics: [
          {
            resource: {
              attributes: [
                str('service.name', 'web-app'),
                str('service.version', '1.0.0'),
                str('deployment.environment', 'production'),
              ],
            },
            scopeMetrics: [
              {
                scope: { name: '@svc/browser' },
                metrics: [
                  {
                    name,
                    unit: 'ms',
                    gauge: {
                      dataPoints: values.map((v, i) => ({
                        timeUnixNano: nanos((p.atMs ?? now - 1000) - i),
                        asDouble: v,
                        attributes: p.path ? [str('url.path', p.path)] : [],
                      })),
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
  const lcp = (values: number[], path: string, atMs?: number) => sendPoints('web_vital_lcp_ms', values, { path, atMs });

  const createRule = async (body: Record<string, unknown>) => {
    const res = await controlCall<Rule>(t, 'POST', '/alert-rules', { severity: 'high', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const rule = async (id: string) => (await controlGet<Rule>(t, `/alert-rules/${id}`)).body;
  const incident = async (id: string) => (await controlGet<Incident>(t, `/incidents/${id}`)).body;
  /** The evaluator's run at `now`, with the notifications it caused sent. */
  const evaluate = async () => {
    const report = await t.server.alerts.runOnce();
    await t.server.notify.outbox.drain();
    return report;
  };
  /** What the webhook received about one incident, in order. */
  const webhookEvents = (incidentId: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as Payload)
      .filter((p) => p.incident_id === incidentId)
      .map((p) => p.event);

  beforeAll(async () => {
    t = await startNotifyingServer(kind, clock, { detection: false });
    receiver = await startReceiver();
    const channel = await controlCall<{ id: string }>(t, 'POST', '/notifications/channels', {
      type: 'webhook',
      name: 'on call',
      config: { url: `${receiver.url}/hook` },
    });
    const routing = await controlCall(t, 'POST', '/notifications/rules', {
      name: 'web-app in production',
      conditions: { env: ['production'], services: ['web-app'] },
      channels: [channel.body.id],
      delay_seconds: 0,
    });
    expect(routing.status, JSON.stringify(routing.body)).toBe(201);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('a threshold rule fires once, opens an incident the webhook receives, and resolves after recovery', async () => {
    const made = await createRule({
      name: 'Checkout LCP',
      signal: 'vitals',
      query: {
        aggregate: 'p75',
        metric: 'LCP',
        filter: { app: ['web-app'], env: ['production'], route: '/checkout*' },
      },
      window_seconds: 300,
      condition: { type: 'threshold', op: 'above', value: 2500 },
      recovery: { value: 2000 },
      severity: 'critical',
    });
    await lcp([900, 1100, 1200], '/checkout');
    // Another page's slow loads are not the rule's.
    await lcp([9000, 9000, 9000], '/home');
    expect((await evaluate()).evaluated).toContain(made.id);
    expect(await rule(made.id)).toMatchObject({ state: 'ok', last_value: 1200, incident_id: null });

    now += MINUTE;
    await lcp([3200, 3400, 3600, 3800, 4000, 4200], '/checkout');
    const fired = await evaluate();
    const firing = await rule(made.id);
    // Nine loads in the window: the 7th slowest (nearest rank of 75%) is 3800.
    expect(firing).toMatchObject({ state: 'firing', last_value: 3800, incident_id: expect.stringMatching(/^inc_/) });
    const id = firing.incident_id!;
    expect(fired.opened).toEqual([id]);
    const opened = await incident(id);
    expect(opened).toMatchObject({
      title: 'Checkout LCP: p75 LCP 3800 ms above 2500 ms',
      status: 'detected',
      severity: 'critical',
      env: 'production',
      services: ['web-app'],
    });
    expect(opened.root_cause_summary).toContain('was 3800 ms over the last 5 minutes, above the threshold of 2500 ms');
    expect(opened.evidence).toMatchObject({
      kind: 'alert_rule',
      rule_id: made.id,
      cause: 'condition',
      measure: 'p75 LCP',
      value: 3800,
      threshold: 2500,
      value_at_detection: 3800,
      query: { aggregate: 'p75', metric: 'LCP' },
    });
    expect(opened.evidence.links.map((l) => l.url)).toContain(
      `${t.url}/vitals?app=web-app&route=%2Fcheckout*&range=15m`,
    );
    expect(webhookEvents(id)).toEqual(['incident.created']);
    // The signed incident page of the notification shows the rule's evidence and where to look.
    const page = await (await fetch(opened.dashboard_url)).text();
    for (const text of [
      '<dt>Alert rule</dt><dd>Checkout LCP</dd>',
      '<dt>Value</dt><dd>3800 ms</dd>',
      '>Web Vitals</a>',
    ])
      expect(page).toContain(text);

    // Still above: the same incident, no second notification.
    now += MINUTE;
    await lcp([4500], '/checkout');
    expect((await evaluate()).opened).toEqual([]);
    expect(await rule(made.id)).toMatchObject({ state: 'firing', incident_id: id });
    expect(webhookEvents(id)).toEqual(['incident.created']);

    // Under the threshold but not yet under the recovery value: still firing.
    now += 6 * MINUTE;
    await lcp([2200, 2200, 2200], '/checkout');
    await evaluate();
    expect(await rule(made.id)).toMatchObject({ state: 'firing', last_value: 2200 });

    now += MINUTE;
    // Twelve fast loads beside the three at 2200 ms: the p75 is 1500, under the recovery value.
    await lcp(Array<number>(12).fill(1500), '/checkout');
    expect((await evaluate()).resolved).toEqual([id]);
    expect(await rule(made.id)).toMatchObject({ state: 'ok', incident_id: null });
    expect(await incident(id)).toMatchObject({ status: 'resolved', resolved_by: 'alert rule: recovered' });
    expect(webhookEvents(id)).toEqual(['incident.created', 'incident.resolved']);
  });

  it('a change rule compares with the same window a day before', async () => {
    const made = await createRule({
      name: 'Cart slower than yesterday',
      signal: 'vitals',
      query: { aggregate: 'p75', metric: 'LCP', filter: { route: '/cart' } },
      window_seconds: 600,
      condition: { type: 'change', op: 'above', percent: 50, compare_to: 'day' },
    });
    await lcp([1000, 1000, 1000, 1000], '/cart', now - DAY - MINUTE);
    await lcp([1400, 1400, 1400, 1400], '/cart', now - MINUTE);
    await evaluate();
    // 1400 is 40% over yesterday's 1000: under the 50% the rule fires at.
    expect(await rule(made.id)).toMatchObject({ state: 'ok', last_value: 1400 });

    now += MINUTE;
    await lcp([1700, 1700, 1700, 1700, 1700], '/cart');
    const { opened } = await evaluate();
    const id = (await rule(made.id)).incident_id!;
    expect(opened).toEqual([id]);
    expect((await incident(id)).evidence).toMatchObject({ value: 1700, baseline: 1000, threshold: 1500 });
    expect((await incident(id)).root_cause_summary).toContain('50% over the same window a day before (1000 ms)');
  });

  it('a rule edited while firing follows its new definition; disabled or deleted, its incident resolves', async () => {
    const fire = async (name: string, route: string) => {
      const made = await createRule({
        name,
        signal: 'vitals',
        query: { aggregate: 'p75', metric: 'LCP', filter: { app: ['web-app'], env: ['production'], route } },
        window_seconds: 300,
        condition: { type: 'threshold', op: 'above', value: 2500 },
      });
      await lcp([3000, 3000], route);
      await evaluate();
      const firing = await rule(made.id);
      expect(firing).toMatchObject({ state: 'firing', incident_id: expect.stringMatching(/^inc_/) });
      return { id: made.id, incident: firing.incident_id! };
    };
    const edited = await fire('Search LCP', '/search');
    const disabled = await fire('Account LCP', '/account');
    const deleted = await fire('Help LCP', '/help');

    // A threshold still under the value: the same incident goes on, its evidence rewritten; no second page.
    const patch = (id: string, body: unknown) => controlCall(t, 'PATCH', `/alert-rules/${id}`, body);
    expect((await patch(edited.id, { condition: { type: 'threshold', op: 'above', value: 2800 } })).status).toBe(200);
    expect((await evaluate()).opened).toEqual([]);
    expect(await rule(edited.id)).toMatchObject({ state: 'firing', incident_id: edited.incident });
    expect((await incident(edited.incident)).evidence).toMatchObject({ threshold: 2800, threshold_at_detection: 2500 });
    // Now above the value: the new condition does not hold, and the incident resolves.
    expect((await patch(edited.id, { condition: { type: 'threshold', op: 'above', value: 3500 } })).status).toBe(200);
    expect((await evaluate()).resolved).toEqual([edited.incident]);
    expect(await rule(edited.id)).toMatchObject({ state: 'ok', incident_id: null });

    expect((await patch(disabled.id, { enabled: false })).status).toBe(200);
    expect((await evaluate()).resolved).toEqual([disabled.incident]);
    expect(await rule(disabled.id)).toMatchObject({ state: 'ok', incident_id: null });
    expect(await incident(disabled.incident)).toMatchObject({ resolved_by: 'alert rule: rule turned off' });

    expect((await controlCall(t, 'DELETE', `/alert-rules/${deleted.id}`)).status).toBe(204);
    expect(await incident(deleted.incident)).toMatchObject({
      status: 'resolved',
      resolved_by: 'alert rule: rule deleted',
    });
    await t.server.notify.outbox.drain();
    for (const { incident: id } of [edited, disabled, deleted])
      expect(webhookEvents(id)).toEqual(['incident.created', 'incident.resolved']);
  });

  it('no data: "alert" opens an incident when a metric stops and resolves it when it is back; "quiet" only records it', async () => {
    const query = { aggregate: 'avg', metric: 'queue.depth', filter: { app: ['web-app'], env: ['production'] } };
    const common = {
      signal: 'metrics',
      query,
      window_seconds: 120,
      condition: { type: 'threshold', op: 'above', value: 100 },
    };
    const alerting = await createRule({ ...common, name: 'Queue depth', no_data: 'alert' });
    const quiet = await createRule({ ...common, name: 'Queue depth (quiet)', no_data: 'quiet' });
    await sendPoints('queue.depth', [10, 20]);
    await evaluate();
    expect(await rule(alerting.id)).toMatchObject({ state: 'ok', last_value: 15 });

    // The metric stops: once the window holds none of it, the signal stopped arriving.
    now += 3 * MINUTE;
    const { opened } = await evaluate();
    const stopped = await rule(alerting.id);
    expect(stopped).toMatchObject({ state: 'no_data', last_value: null, incident_id: expect.stringMatching(/^inc_/) });
    expect(opened).toEqual([stopped.incident_id]);
    expect(await rule(quiet.id)).toMatchObject({ state: 'no_data', incident_id: null });
    const silent = await incident(stopped.incident_id!);
    expect(silent).toMatchObject({ title: 'Queue depth: no data for 2 minutes', status: 'detected' });
    expect(silent.evidence).toMatchObject({ cause: 'no_data', value: null });
    expect(webhookEvents(silent.id)).toEqual(['incident.created']);

    now += MINUTE;
    await sendPoints('queue.depth', [30]);
    expect((await evaluate()).resolved).toEqual([silent.id]);
    expect(await rule(alerting.id)).toMatchObject({ state: 'ok', incident_id: null, last_value: 30 });
    expect(await rule(quiet.id)).toMatchObject({ state: 'ok' });
    expect(await incident(silent.id)).toMatchObject({
      status: 'resolved',
      resolved_by: 'alert rule: data arriving again',
    });
  });
});
