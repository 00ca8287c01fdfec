import { hc } from 'hono/client';
import type { MeApi, TracesApi, VitalsApi } from '../../../src/api-types';
import { apiFetch } from './client';

/**
 * Hono's typed clients for route groups whose types the server exports (server/src/api-types.ts): paths, parameters
 * and answers come from the schemas the routes validate with, so a renamed field breaks this build. Sign-in calls
 * through one; the Web Vitals and trace pages take their answer types from theirs.
 * Requests go through `apiFetch` (the tab's key in the Authorization header, the one error shape, sign-out on 401).
 */
const via =
  (key?: string): typeof fetch =>
  async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const data = await apiFetch<unknown>(init?.method ?? 'GET', url, { body, signal: init?.signal ?? undefined, key });
    return new Response(data === undefined ? null : JSON.stringify(data), {
      status: data === undefined ? 204 : 200,
      headers: { 'content-type': 'application/json' },
    });
  };
const viaApi = via();

const origin = () => location.origin;
/** `key` checks a key that is not the tab's yet (sign-in). */
export const meClient = (key?: string) =>
  hc<MeApi>(`${origin()}/control-plane/me`, { fetch: key === undefined ? viaApi : via(key) });
export const vitalsClient = () => hc<VitalsApi>(`${origin()}/control-plane/vitals`, { fetch: viaApi });
export const tracesClient = () => hc<TracesApi>(`${origin()}/control-plane/traces`, { fetch: viaApi });
