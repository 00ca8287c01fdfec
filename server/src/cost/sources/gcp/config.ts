import { createPrivateKey } from 'node:crypto';
import { invalid } from '../../../shared/domain-errors';
import { isObject, type JsonObject } from '../../../json/read';

/**
 * A GCP cost connection: the Cloud Billing export table in BigQuery and the project whose query jobs read it.
 *
 * - `project_id` (required): the project the query jobs run in and are billed to (jobs.query needs
 *   `bigquery.jobs.create` there, e.g. roles/bigquery.jobUser).
 * - `dataset` (required): the dataset Cloud Billing exports into.
 * - `table` (required): the export table, `gcp_billing_export_v1_<BILLING_ACCOUNT_ID>` (standard usage cost) or
 *   `gcp_billing_export_resource_v1_<BILLING_ACCOUNT_ID>` (detailed usage cost, which adds resource ids and names).
 * - `dataset_project_id` (optional, default `project_id`): the project holding the dataset, when it is not the one the
 *   jobs run in. The reading identity needs roles/bigquery.dataViewer on the dataset or table.
 * - `location` (optional): the dataset's BigQuery location (`US`, `EU`, `us-central1`, ...); BigQuery infers it when
 *   absent.
 * - `export_type` (optional): `standard` or `detailed`; inferred from the table name, required when the table has
 *   another name (a copy) because the two exports have different columns.
 * - `credentials` (optional, secret): a service account key, the JSON Google issues (`type: service_account`,
 *   `client_email`, `private_key`, ...), as an object or as its JSON text. Without it the server's Application Default
 *   Credentials are used.
 */
export interface GcpConfig {
  project_id: string;
  dataset_project_id: string;
  dataset: string;
  table: string;
  location: string | null;
  export_type: ExportType;
  /** Which identity reads: shown so a user can tell the two apart, never which account it is. */
  auth: 'service_account_key' | 'application_default';
}

export type ExportType = 'standard' | 'detailed';

export interface GcpSecrets {
  credentials: ServiceAccountKey | null;
}

/** The parts of a service account key the server signs with; the rest of Google's key file is not kept. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

const FIELDS = ['project_id', 'dataset_project_id', 'dataset', 'table', 'location', 'export_type', 'credentials'];

/**
 * Project ids: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen;
 * older projects may carry a domain prefix (`example.com:my-project`).
 */
const PROJECT_ID = /^(?:[a-z0-9][a-z0-9.-]{0,61}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const DATASET = /^\w{1,1024}$/;
/** Table names: letters, marks, numbers, connectors and dashes (BigQuery allows spaces too; an export never has them). */
const TABLE = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}]{1,1024}$/u;
/** Multi-regions (`US`, `EU`) and regions (`us-central1`, `northamerica-northeast1`). */
const LOCATION = /^(?:US|EU|[a-z]+-[a-z]+\d{1,2})$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const EXPORT_TABLE_PREFIX: Record<string, ExportType> = {
  gcp_billing_export_v1_: 'standard',
  gcp_billing_export_resource_v1_: 'detailed',
};

/** Parses a connection's `config`, naming the offending field as `config.<field>` in every error. */
export function parseGcpConfig(raw: unknown): { config: GcpConfig; secrets: GcpSecrets } {
  if (!isObject(raw)) throw invalid('config must be an object', 'invalid_request', { field: 'config' });
  const unknown = Object.keys(raw).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) {
    throw fieldError(unknown[0]!, `is not a GCP field (known: ${FIELDS.join(', ')})`);
  }

  const projectId = matching(raw, 'project_id', PROJECT_ID, 'must be a GCP project id such as my-billing-project');
  const datasetProjectId =
    optionalString(raw, 'dataset_project_id') === undefined
      ? projectId
      : matching(raw, 'dataset_project_id', PROJECT_ID, 'must be a GCP project id such as my-billing-project');
  const dataset = matching(raw, 'dataset', DATASET, 'must be a BigQuery dataset name (letters, digits, underscores)');
  const table = matching(
    raw,
    'table',
    TABLE,
    'must be a BigQuery table name such as gcp_billing_export_resource_v1_0A1B2C_3D4E5F_6A7B8C',
  );
  const location =
    optionalString(raw, 'location') === undefined
      ? null
      : matching(raw, 'location', LOCATION, 'must be a BigQuery location such as US, EU or us-central1');
  const credentials = serviceAccountKey(raw.credentials);

  return {
    config: {
      project_id: projectId,
      dataset_project_id: datasetProjectId,
      dataset,
      table,
      location,
      export_type: exportType(raw.export_type, table),
      auth: credentials ? 'service_account_key' : 'application_default',
    },
    secrets: { credentials },
  };
}

/** What the API shows of a connection: where the export is and how it is read, never with which key. */
export function publicGcpConfig(config: GcpConfig): Record<string, unknown> {
  return { ...config };
}

function exportType(v: unknown, table: string): ExportType {
  if (v === 'standard' || v === 'detailed') return v;
  if (v !== undefined && v !== null) throw fieldError('export_type', 'must be standard or detailed');
  for (const [prefix, type] of Object.entries(EXPORT_TABLE_PREFIX)) if (table.startsWith(prefix)) return type;
  throw fieldError(
    'export_type',
    'is required (standard or detailed) when config.table is not named like a Cloud Billing export table ' +
      '(gcp_billing_export_v1_… or gcp_billing_export_resource_v1_…)',
  );
}

function serviceAccountKey(v: unknown): ServiceAccountKey | null {
  if (v === undefined || v === null) return null;
  const field = 'credentials';
  let key: unknown = v;
  if (typeof v === 'string') {
    try {
      key = JSON.parse(v);
    } catch {
      throw fieldError(field, 'must be a service account key: the JSON object, or its text, as Google issues it');
    }
  }
  if (!isObject(key))
    throw fieldError(field, 'must be a service account key: the JSON object, or its text, as Google issues it');
  if (key.type !== 'service_account') {
    throw fieldError(`${field}.type`, 'must be service_account (other credential types are not accepted here)');
  }
  // Keys for other universes (sovereign clouds) sign for other hosts than the BigQuery endpoint this server talks to.
  if (key.universe_domain !== undefined && key.universe_domain !== 'googleapis.com') {
    throw fieldError(`${field}.universe_domain`, 'must be googleapis.com');
  }
  const clientEmail = keyString(key, 'client_email');
  if (!EMAIL.test(clientEmail)) throw fieldError(`${field}.client_email`, 'must be the service account email');
  const privateKey = keyString(key, 'private_key');
  try {
    if (createPrivateKey(privateKey).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw fieldError(`${field}.private_key`, "must be the key file's PEM RSA private key");
  }
  const parsed: ServiceAccountKey = { client_email: clientEmail, private_key: privateKey };
  if (key.private_key_id !== undefined) parsed.private_key_id = keyString(key, 'private_key_id');
  return parsed;
}

function keyString(key: JsonObject, name: string): string {
  const v = key[name];
  if (typeof v !== 'string' || v === '') throw fieldError(`credentials.${name}`, 'is required (a string)');
  return v;
}

function matching(raw: JsonObject, field: string, pattern: RegExp, rule: string): string {
  const v = raw[field];
  if (v === undefined || v === null || v === '') throw fieldError(field, 'is required');
  if (typeof v !== 'string' || !pattern.test(v)) throw fieldError(field, rule);
  return v;
}

function optionalString(raw: JsonObject, field: string): unknown {
  const v = raw[field];
  return v === null || v === '' ? undefined : v;
}

function fieldError(field: string, rule: string) {
  return invalid(`config.${field} ${rule}`, 'invalid_request', { field: `config.${field}` });
}
