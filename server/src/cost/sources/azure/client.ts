import { setTimeout as sleep } from 'node:timers/promises';
import { CostManagementClient, type CostManagementClientOptionalParams } from '@azure/arm-costmanagement';
import { createHttpHeaders, createPipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { ClientSecretCredential } from '@azure/identity';
import type { CostEndpoints } from '../types';
import type { AzureSecrets } from './config';
import type { CostQueryBody } from './query';

const DEFAULT_MANAGEMENT = 'https://management.azure.com';

/**
 * How the SDK clients reach Azure, beyond the endpoints: a Node `agent` (e.g. an `https.Agent` trusting a private CA,
 * as the test's local Azure does). Passed to both the Entra ID credential and the Cost Management client.
 */
export type AzureTransport = Pick<CostManagementClientOptionalParams, 'agent'>;

/** Retries of one page after 429 Too Many Requests, each after the wait Cost Management asks for. */
const THROTTLE_RETRIES = 3;
/** A wait longer than this fails the sync (which the scheduler retries later) rather than holding it for minutes. */
const MAX_THROTTLE_WAIT_MS = 120_000;
/** When a 429 names no wait: programmatic callers get a few queries per scope per minute. */
const DEFAULT_THROTTLE_WAIT_MS = 60_000;
/**
 * Cost Management throttles by query processing units (per tenant), entity and client type, and says how long to wait
 * for each in seconds; the longest governs (learn.microsoft.com/azure/cost-management-billing/costs/manage-automation).
 */
const RETRY_AFTER_HEADERS = [
  'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after',
  'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after',
  'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after',
  'x-ms-ratelimit-microsoft.costmanagement-clienttype-retry-after',
  'retry-after',
];

/**
 * The Cost Management Query API through the official client's pipeline (Entra ID bearer token from a
 * ClientSecretCredential, the SDK's retries for transient failures). Only `POST {scope}/providers/Microsoft.CostManagement/query`
 * is ever sent: the first page to the query URL, later pages to the `nextLink` the previous page named, each with the
 * same body.
 *
 * Pages are sent with the client's `sendRequest` rather than `query.usage`: the generated operation serializes only the
 * REST spec's fields, which drops `dataset.include` (the `Tags` column), and has no way to follow `nextLink`.
 */
export class CostQueryApi {
  private readonly client: CostManagementClient;
  private readonly endpoint: string;

  constructor(secrets: AzureSecrets, endpoints: CostEndpoints, transport: AzureTransport = {}) {
    this.endpoint = (endpoints.azureManagement ?? DEFAULT_MANAGEMENT).replace(/\/+$/, '');
    const credential = new ClientSecretCredential(secrets.tenant_id, secrets.client_id, secrets.client_secret, {
      ...transport,
      // A configured authority (sovereign or private cloud, the tests' local one) is trusted as given: instance
      // discovery would ask login.microsoftonline.com to vouch for a host it does not know.
      ...(endpoints.azureAuthorityHost
        ? { authorityHost: endpoints.azureAuthorityHost, disableInstanceDiscovery: true }
        : {}),
    });
    this.client = new CostManagementClient(credential, { ...transport, endpoint: this.endpoint, $host: this.endpoint });
  }

  /** Every page of one query's answer, as parsed JSON; null for a 204 (no data at this scope). */
  async *pages(scope: string, body: CostQueryBody, signal: AbortSignal): AsyncGenerator<unknown> {
    let url: string | null =
      `${this.endpoint}${scope}/providers/Microsoft.CostManagement/query?api-version=${this.client.apiVersion}`;
    while (url) {
      const page = await this.post(url, body, signal);
      yield page;
      url = this.nextUrl(page);
    }
  }

  private nextUrl(page: unknown): string | null {
    const next = (page as { properties?: { nextLink?: unknown } } | null)?.properties?.nextLink;
    if (typeof next !== 'string' || next === '') return null;
    // The bearer token goes wherever nextLink points: only ever to the management endpoint itself.
    if (new URL(next).origin !== new URL(this.endpoint).origin) {
      throw new Error(`Cost Management returned a nextLink outside ${this.endpoint}; not following it`);
    }
    return next;
  }

  private async post(url: string, body: CostQueryBody, signal: AbortSignal): Promise<unknown> {
    for (let retry = 0; ; retry++) {
      const response = await this.send(url, body, signal);
      if (response.status === 200) return JSON.parse(response.bodyAsText ?? 'null');
      if (response.status === 204) return null;
      if (response.status === 429 && retry < THROTTLE_RETRIES) {
        const waitMs = throttleWaitMs(response);
        if (waitMs <= MAX_THROTTLE_WAIT_MS) {
          await sleep(waitMs, undefined, { signal });
          continue;
        }
      }
      throw new Error(failure(response, body));
    }
  }

  /** One request; a failure to sign in or to connect names the query it stopped. */
  private async send(url: string, body: CostQueryBody, signal: AbortSignal): Promise<PipelineResponse> {
    try {
      return await this.client.sendRequest(
        createPipelineRequest({
          url,
          method: 'POST',
          body: JSON.stringify(body),
          headers: createHttpHeaders({ 'content-type': 'application/json', accept: 'application/json' }),
          abortSignal: signal,
        }),
      );
    } catch (err) {
      if (signal.aborted) throw err;
      throw new Error(`Cost Management ${body.type} query could not be sent: ${causeChain(err)}`, { cause: err });
    }
  }
}

/**
 * The messages of an error and its causes: MSAL reports an untrusted certificate or an unreachable authority as a
 * bare code (`endpoints_resolution_error`) whose reason is only in its cause or `errorMessage`.
 */
function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const { message, errorMessage, cause } = e as { message?: unknown; errorMessage?: unknown; cause?: unknown };
    for (const text of [message, errorMessage])
      if (typeof text === 'string' && text !== '' && !parts.some((p) => p.includes(text))) parts.push(text);
    if (typeof e !== 'object') parts.push(String(e));
    e = cause;
  }
  return parts.join(': ');
}

function throttleWaitMs(response: PipelineResponse): number {
  const seconds = RETRY_AFTER_HEADERS.map((h) => Number(response.headers.get(h))).filter(
    (n) => Number.isFinite(n) && n >= 0,
  );
  return seconds.length > 0 ? Math.max(...seconds) * 1000 : DEFAULT_THROTTLE_WAIT_MS;
}

/** An ARM error answer (`{"error": {"code", "message"}}`) as one line naming the status and what to fix. */
function failure(response: PipelineResponse, body: CostQueryBody): string {
  let detail = '';
  try {
    const parsed = JSON.parse(response.bodyAsText ?? '') as { error?: { code?: unknown; message?: unknown } };
    detail = [parsed.error?.code, parsed.error?.message].filter((s) => typeof s === 'string' && s !== '').join(': ');
  } catch {
    detail = (response.bodyAsText ?? '').slice(0, 300);
  }
  const what = `Cost Management ${body.type} query failed with HTTP ${response.status}${detail ? ` (${detail})` : ''}`;
  if (response.status === 401) return `${what}; Resource Manager refused the app's token`;
  if (response.status === 403) return `${what}; the app needs the Cost Management Reader role on the scope`;
  if (response.status === 429) {
    const waitMs = throttleWaitMs(response);
    return `${what}; throttled, Cost Management asks to wait ${Math.round(waitMs / 1000)} s`;
  }
  return what;
}
