import { BigQuery, type Query, type QueryRowsResponse } from '@google-cloud/bigquery';
import { JWT } from 'google-auth-library';
import type { BillingPeriod, BillingSource, LineItemBatches } from '../../model';
import type { SourceEnv } from '../types';
import type { GcpConfig, GcpSecrets, ServiceAccountKey } from './config';
import { billingQuery } from './query';
import { gcpLineItems } from './row';

/** Rows per page: one page is one batch, well under BigQuery's 10 MB response cap with labels and credits. */
const PAGE_ROWS = 5000;

const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery';

/**
 * Reads a connection's invoice months from its Cloud Billing export with the official BigQuery client: one query job
 * (jobs.query, a parameterized SELECT) per period, its result read page by page (jobs.getQueryResults with
 * `pageToken`), each page mapped and yielded before the next is fetched, so a month is never held whole. A cancelled
 * sync stops between pages (the client's calls take no abort signal).
 */
export function gcpBillingSource(config: GcpConfig, secrets: GcpSecrets, env: SourceEnv): BillingSource {
  const bigquery = new BigQuery({
    projectId: config.project_id,
    ...(env.endpoints.bigquery ? { apiEndpoint: env.endpoints.bigquery } : {}),
    ...(secrets.credentials ? { authClient: serviceAccountClient(secrets.credentials) } : {}),
  });
  return { read: (period, signal) => readPeriod(bigquery, config, period, signal, env.log) };
}

/**
 * The key signs its own bearer token (a self-signed JWT carrying the BigQuery scope, RS256 with the key), which Google
 * APIs accept in place of an OAuth access token: no call to a token endpoint, and nothing in the key file (such as its
 * `token_uri`) decides where the server sends a signed assertion.
 */
function serviceAccountClient(key: ServiceAccountKey): JWT {
  const client = new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [BIGQUERY_SCOPE],
  });
  client.useJWTAccessWithScope = true;
  return client;
}

async function* readPeriod(
  bigquery: BigQuery,
  config: GcpConfig,
  period: BillingPeriod,
  signal: AbortSignal,
  log: (line: string) => void,
): LineItemBatches {
  const table = `${config.dataset_project_id}.${config.dataset}.${config.table}`;
  const { query, params } = billingQuery(config, period);
  signal.throwIfAborted();
  log(`gcp: querying ${table} for invoice month ${params.invoice_month}`);
  const request: Query = { query, params, ...(config.location ? { location: config.location } : {}) };
  let page = await call(table, config, () => firstPage(bigquery, request));
  let rowNumber = 0;
  for (;;) {
    const [rows, next] = page;
    if (rows.length > 0) yield rows.flatMap((row) => gcpLineItems(row, ++rowNumber));
    const job = next?.job;
    // No next query: the last page. A next query without a page token means the job is still running; asking again
    // waits for it (getQueryResults holds the call until the job completes or its timeout passes).
    if (!next || !job) break;
    signal.throwIfAborted();
    page = await call(table, config, () => job.getQueryResults(next));
  }
  log(`gcp: read ${rowNumber} rows of ${table} for invoice month ${params.invoice_month}`);
}

/**
 * jobs.query with the first page of rows. With `autoPaginate: false` the client answers `[rows, nextQuery, response]`
 * like getQueryResults (bigquery.ts hands the call on to `job.getQueryResults`); its typings only describe the
 * auto-paginated `[rows, job]`.
 */
function firstPage(bigquery: BigQuery, request: Query): Promise<QueryRowsResponse> {
  return bigquery.query(request, {
    autoPaginate: false,
    maxResults: PAGE_ROWS,
  }) as unknown as Promise<QueryRowsResponse>;
}

/** Runs one BigQuery call, turning its error into one that says which table and what the reader needs. */
async function call(
  table: string,
  config: GcpConfig,
  run: () => Promise<QueryRowsResponse>,
): Promise<QueryRowsResponse> {
  try {
    return await run();
  } catch (err) {
    throw new Error(`BigQuery query of ${table} failed: ${errorText(err)}${accessHint(err, config)}`, { cause: err });
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function accessHint(err: unknown, config: GcpConfig): string {
  const status = (err as { code?: unknown }).code;
  if (status === 401)
    return " (the credentials were refused: check config.credentials or the server's default credentials)";
  if (status === 403) {
    return ` (the reading identity needs roles/bigquery.jobUser on project ${config.project_id} and roles/bigquery.dataViewer on the dataset)`;
  }
  return '';
}
