import { expect } from '@playwright/test';
import { controlGet, type TestServer } from '../../support/svc-server';

/**
 * Seeding the console specs the way apps send telemetry: OTLP/JSON over HTTP ingest with the project's ingest key.
 * Attribute maps are written as plain objects and turned into OTLP key/value lists here.
 */

type Value = string | number | boolean;
export type Attributes = Record<string, Value>;

export function otlpAttributes(attributes: Attributes): Array<{ key: string; value: Record<string, unknown> }> {
  return Object.entries(attributes).map(([key, v]) => ({
    key,
    value:
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: v }
            : { doubleValue: v },
  }));
}

/** Epoch milliseconds as OTLP's decimal nanoseconds. */
export const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/** POSTs one OTLP/JSON body to `/otlp/v1/<signal>` and fails unless ingest accepted all of it. */
export async function ingest(
  server: Pick<TestServer, 'url' | 'ingestKey'>,
  signal: 'traces' | 'logs' | 'metrics',
  body: unknown,
): Promise<void> {
  const res = await fetch(`${server.url}/otlp/v1/${signal}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(JSON.parse(text), 'every record accepted').toEqual({ partialSuccess: {} });
}

/** Waits until the control plane's listing at `path` holds at least `count` items (ingest stores asynchronously). */
export async function waitForItems(
  server: Pick<TestServer, 'url' | 'controlKey'>,
  path: string,
  count: number,
): Promise<void> {
  await expect
    .poll(async () => (await controlGet(server, path)).body.data?.length ?? 0, {
      message: `${path} lists ${count} items`,
      timeout: 15_000,
    })
    .toBeGreaterThanOrEqual(count);
}

/** One resource's LCP points (the SDK's `web_vital_lcp_ms`, each with its page's `url.path`): a `resourceMetrics` entry. */
export function lcpMetrics(
  resource: Attributes,
  points: ReadonlyArray<{ atMs: number; value: number; path: string }>,
): Record<string, unknown> {
  const dataPoints = points.map((p) => ({
    timeUnixNano: nanos(p.atMs),
    asDouble: p.value,
    attributes: otlpAttributes({ 'url.path': p.path }),
  }));
  return {
    resource: { attributes: otlpAttributes(resource) },
    scopeMetrics: [
      { scope: { name: '@svc/browser' }, metrics: [{ name: 'web_vital_lcp_ms', unit: 'ms', gauge: { dataPoints } }] },
    ],
  };
}
