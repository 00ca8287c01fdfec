import { expect } from 'vitest';
import { API_KEY_HEADER } from '../../wire/paths';
import type { Clock } from '../../server/src/clock';
import { startServer, type RunningServer, type StartOptions } from '../../server/src/index';
import { createTempDatabase, type DatabaseKind } from './databases';
import { eventually } from './until';

export interface TestServer {
  url: string;
  server: RunningServer;
  /** Keys and ids of the bootstrapped default tenant, project and app (`web-app`). */
  ingestKey: string;
  controlKey: string;
  projectId: string;
  appName: string;
  close(): Promise<void>;
}

/** A real reference server on a random port over a fresh database of `kind`. */
export async function startTestServer(kind: DatabaseKind, options: StartOptions = {}): Promise<TestServer> {
  const database = await createTempDatabase(kind);
  const server = await startServer({ port: 0, log: () => undefined, ...options, databaseUrl: database.url });
  const boot = server.bootstrap!;
  return {
    url: server.url,
    server,
    ingestKey: boot.ingestKey.key,
    controlKey: boot.controlKey.key,
    projectId: boot.projectId,
    appName: boot.appName,
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

/**
 * A test server whose notifications a test drives: its clock, channels allowed to reach the local receiver, a fixed
 * secret key (signed links), and an outbox that sends only when the test drains it; `options` on top.
 */
export const startNotifyingServer = (
  kind: DatabaseKind,
  clock: Clock,
  options: StartOptions = {},
): Promise<TestServer> =>
  startTestServer(kind, {
    clock,
    allowPrivateTargets: true,
    secretKey: 'k'.repeat(40),
    outbox: { pollMs: 60_000 },
    ...options,
  });

/** POSTs a JSON body to an ingest path with the ingest key, expecting it accepted (200; the answer in the message). */
export async function postIngest(t: Pick<TestServer, 'url' | 'ingestKey'>, path: string, body: string): Promise<void> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [API_KEY_HEADER]: t.ingestKey },
    body,
  });
  expect(res.status, `POST ${path}: ${await res.clone().text()}`).toBe(200);
}

/** GET a control-plane path with the control key; returns the parsed JSON body and status. */
export async function controlGet<T = { data: Record<string, unknown>[]; next_cursor: string | null }>(
  t: TestServer,
  path: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.url}/control-plane${path}`, { headers: { authorization: `Bearer ${t.controlKey}` } });
  return { status: res.status, body: (await res.json()) as T };
}

/** A control-plane request with a JSON body when given, as `key` (the control key by default); a 204 answers null. */
export async function controlCall<T>(
  t: Pick<TestServer, 'url' | 'controlKey'>,
  method: string,
  path: string,
  body?: unknown,
  key = t.controlKey,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
}

/** Each control-plane GET of `cases` (`[path, field]`) is a 400 `invalid_request` naming that field. */
export async function expectBadRequests(
  t: TestServer,
  cases: ReadonlyArray<readonly [path: string, field: string]>,
): Promise<void> {
  for (const [path, field] of cases) {
    const res = await controlGet<{ error: { code: string; details?: { field?: string } } }>(t, path);
    expect([path, res.status, res.body.error.code, res.body.error.details?.field]).toEqual([
      path,
      400,
      'invalid_request',
      field,
    ]);
  }
}

/**
 * Waits until the project holds at least `counts` records of each listing (`spans`, `logs`, `metrics`): ingest stores
 * in the background. Call it inside a test (it waits with `eventually`).
 */
export async function recordsStored(
  t: TestServer,
  counts: Partial<Record<'spans' | 'logs' | 'metrics', number>>,
): Promise<void> {
  for (const [listing, count] of Object.entries(counts)) {
    await eventually(`${count} ${listing} stored`, async () => {
      const res = await controlGet<{ data?: unknown[] }>(t, `/${listing}?limit=100&from=0`);
      return (res.body.data?.length ?? 0) >= count || undefined;
    });
  }
}
