import { generateKeyPairSync, randomUUID, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLocally, type LocalServer } from '../local-server';

/**
 * A BigQuery REST v2 server on 127.0.0.1 holding Cloud Billing export tables, for the GCP cost source's tests. It
 * speaks the wire format the official client reads:
 *
 * - jobs.query `POST /bigquery/v2/projects/{project}/queries` (body: `query`, `queryParameters`, `maxResults`,
 *   `location`, `formatOptions.useInt64Timestamp`) → `schema`, `jobReference`, `totalRows`, `rows`, `pageToken`,
 *   `jobComplete`;
 * - jobs.getQueryResults `GET /bigquery/v2/projects/{project}/queries/{jobId}?pageToken&maxResults&...`;
 * - rows as `{f: [{v}]}`, RECORDs as `{v: {f: [...]}}`, REPEATED fields as `{v: [{v}, ...]}`, FLOAT64 as decimal
 *   strings, TIMESTAMPs as int64 microseconds when `formatOptions.useInt64Timestamp` (else float seconds);
 * - errors as Google's `{error: {code, message, errors: [{reason, ...}], status}}`.
 *
 * It runs only the SELECT shape the source sends: column paths with optional `AS` aliases (and `CAST(NULL AS STRING)`)
 * from one backticked table, `WHERE` a conjunction of `<path> = @param` and `_PARTITIONTIME >= @param`. Anything else
 * is answered 400 like a syntax error, so a query the fake does not understand fails instead of being half-run.
 * Parameters are typed as BigQuery types them: a value its `parameterType.type` cannot hold (an INT64 that is not an
 * integer, a DATE that is not a date) and a comparison of a column with a parameter of another type are refused 400
 * `invalidQuery`, as BigQuery refuses them.
 *
 * Authentication is a service account's self-signed JWT (RS256, `scope` claim), verified against the public keys of
 * the accounts `serviceAccount()` created; anything else is 401.
 */
export interface FakeBigQuery extends LocalServer {
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Every jobs.query body: the SQL and its named parameters (`{name: value}`). */
  queries: { query: string; params: Record<string, string>; location?: string }[];
  /** Adds a billing export table at `project.dataset.table`. */
  addTable(path: string, table: ExportTable): void;
  /** A new service account key (the JSON Google issues) whose JWTs this server accepts. */
  serviceAccount(email: string): ServiceAccountKeyFile;
  /** Accounts refused with 403 accessDenied on every table (valid credentials, missing IAM role). */
  denied: Set<string>;
  /** Rows per page at most, whatever maxResults asks (BigQuery also caps pages by bytes). */
  pageRows: number;
  /** jobs.query and the next getQueryResults calls answer `jobComplete: false` this many times first. */
  pendingPolls: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
}

export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
}

export interface ExportTable {
  schema: SchemaField[];
  /** Rows as nested objects keyed like the schema, plus `_PARTITIONTIME` (epoch ms) as the export would load them. */
  rows: Record<string, unknown>[];
}

export interface SchemaField {
  name: string;
  type: 'STRING' | 'FLOAT' | 'INTEGER' | 'TIMESTAMP' | 'BOOLEAN' | 'RECORD';
  mode?: 'NULLABLE' | 'REPEATED' | 'REQUIRED';
  fields?: SchemaField[];
}

const label: SchemaField[] = [
  { name: 'key', type: 'STRING' },
  { name: 'value', type: 'STRING' },
];

/** The Cloud Billing standard usage cost export schema (cloud.google.com/billing/docs/how-to/export-data-bigquery-tables). */
export const STANDARD_EXPORT_SCHEMA: SchemaField[] = [
  { name: 'billing_account_id', type: 'STRING' },
  {
    name: 'service',
    type: 'RECORD',
    fields: [
      { name: 'id', type: 'STRING' },
      { name: 'description', type: 'STRING' },
    ],
  },
  {
    name: 'sku',
    type: 'RECORD',
    fields: [
      { name: 'id', type: 'STRING' },
      { name: 'description', type: 'STRING' },
    ],
  },
  { name: 'usage_start_time', type: 'TIMESTAMP' },
  { name: 'usage_end_time', type: 'TIMESTAMP' },
  {
    name: 'project',
    type: 'RECORD',
    fields: [
      { name: 'id', type: 'STRING' },
      { name: 'number', type: 'STRING' },
      { name: 'name', type: 'STRING' },
      { name: 'labels', type: 'RECORD', mode: 'REPEATED', fields: label },
      { name: 'ancestry_numbers', type: 'STRING' },
    ],
  },
  { name: 'labels', type: 'RECORD', mode: 'REPEATED', fields: label },
  { name: 'system_labels', type: 'RECORD', mode: 'REPEATED', fields: label },
  {
    name: 'location',
    type: 'RECORD',
    fields: [
      { name: 'location', type: 'STRING' },
      { name: 'country', type: 'STRING' },
      { name: 'region', type: 'STRING' },
      { name: 'zone', type: 'STRING' },
    ],
  },
  { name: 'export_time', type: 'TIMESTAMP' },
  { name: 'cost', type: 'FLOAT' },
  { name: 'currency', type: 'STRING' },
  { name: 'currency_conversion_rate', type: 'FLOAT' },
  {
    name: 'usage',
    type: 'RECORD',
    fields: [
      { name: 'amount', type: 'FLOAT' },
      { name: 'unit', type: 'STRING' },
      { name: 'amount_in_pricing_units', type: 'FLOAT' },
      { name: 'pricing_unit', type: 'STRING' },
    ],
  },
  {
    name: 'credits',
    type: 'RECORD',
    mode: 'REPEATED',
    fields: [
      { name: 'name', type: 'STRING' },
      { name: 'amount', type: 'FLOAT' },
      { name: 'full_name', type: 'STRING' },
      { name: 'id', type: 'STRING' },
      { name: 'type', type: 'STRING' },
    ],
  },
  { name: 'invoice', type: 'RECORD', fields: [{ name: 'month', type: 'STRING' }] },
  { name: 'cost_type', type: 'STRING' },
  {
    name: 'adjustment_info',
    type: 'RECORD',
    fields: [
      { name: 'id', type: 'STRING' },
      { name: 'description', type: 'STRING' },
      { name: 'mode', type: 'STRING' },
      { name: 'type', type: 'STRING' },
    ],
  },
];

/** The detailed usage cost export: the standard columns plus the resource. */
export const DETAILED_EXPORT_SCHEMA: SchemaField[] = [
  ...STANDARD_EXPORT_SCHEMA,
  {
    name: 'resource',
    type: 'RECORD',
    fields: [
      { name: 'name', type: 'STRING' },
      { name: 'global_name', type: 'STRING' },
    ],
  },
];

const SCOPES = ['https://www.googleapis.com/auth/bigquery', 'https://www.googleapis.com/auth/cloud-platform'];

interface Job {
  id: string;
  project: string;
  location: string;
  schema: SchemaField[];
  rows: unknown[][];
  pendingPolls: number;
}

export async function fakeBigQuery(): Promise<FakeBigQuery> {
  const tables = new Map<string, ExportTable>();
  const keys = new Map<string, KeyObject>();
  const jobs = new Map<string, Job>();

  const local = await serveLocally((req, res) => {
    void handle(req, res).catch((err: unknown) => googleError(res, 500, 'internalError', String(err)));
  });
  const fake: FakeBigQuery = {
    ...local,
    requests: [],
    queries: [],
    denied: new Set(),
    pageRows: 10_000,
    pendingPolls: 0,
    addTable: (path, table) => tables.set(path, table),
    serviceAccount(email) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      keys.set(email, publicKey);
      return {
        type: 'service_account',
        project_id: email.split('@')[1]!.split('.')[0]!,
        private_key_id: randomUUID().replaceAll('-', ''),
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: email,
        client_id: '104834759284710938475',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
      };
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', fake.origin);
    const body = await readBody(req);
    fake.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
    });

    const caller = authenticate(req.headers.authorization);
    if (!caller) {
      googleError(
        res,
        401,
        'authError',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
      return;
    }
    const route = /^\/bigquery\/v2\/projects\/([^/]+)\/queries(?:\/([^/]+))?$/.exec(url.pathname);
    if (route && req.method === 'POST' && !route[2])
      return jobsQuery(res, decodeURIComponent(route[1]!), JSON.parse(body), caller);
    if (route && req.method === 'GET' && route[2])
      return getQueryResults(res, decodeURIComponent(route[2]), url.searchParams);
    googleError(res, 404, 'notFound', `Not found: ${req.method} ${url.pathname}`);
  }

  /** The caller's service account email when the bearer token is a valid self-signed JWT for BigQuery. */
  function authenticate(authorization: string | undefined): string | null {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const [header, payload, signature] = token?.split('.') ?? [];
    if (!header || !payload || !signature) return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      iss?: string;
      sub?: string;
      scope?: string;
      exp?: number;
    };
    const alg = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg;
    const key = keys.get(claims.iss ?? '');
    if (alg !== 'RS256' || !key || claims.sub !== claims.iss) return null;
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')))
      return null;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) return null;
    if (!claims.scope?.split(' ').some((s) => SCOPES.includes(s))) return null;
    return claims.iss!;
  }

  function jobsQuery(res: ServerResponse, project: string, request: QueryRequest, caller: string): void {
    const params = Object.fromEntries((request.queryParameters ?? []).map((p) => [p.name, p.parameterValue.value]));
    fake.queries.push({ query: request.query, params, ...(request.location ? { location: request.location } : {}) });
    let result: { schema: SchemaField[]; rows: unknown[][] };
    try {
      result = runSelect(
        request.query,
        typedParameters(request.queryParameters ?? []),
        tables,
        fake.denied.has(caller),
      );
    } catch (err) {
      if (err instanceof QueryError) return googleError(res, err.status, err.reason, err.message);
      throw err;
    }
    const job: Job = {
      id: `job_${randomUUID().replaceAll('-', '')}`,
      project,
      location: request.location ?? 'US',
      ...result,
      pendingPolls: fake.pendingPolls,
    };
    jobs.set(job.id, job);
    const timestamps = request.formatOptions?.useInt64Timestamp === true;
    send(res, 200, { kind: 'bigquery#queryResponse', ...page(job, 0, request.maxResults, timestamps) });
  }

  function getQueryResults(res: ServerResponse, jobId: string, query: URLSearchParams): void {
    const job = jobs.get(jobId);
    if (!job) return googleError(res, 404, 'notFound', `Not found: Job ${jobId}`);
    const offset = query.get('pageToken') ? Number(Buffer.from(query.get('pageToken')!, 'base64url').toString()) : 0;
    const maxResults = query.get('maxResults') ? Number(query.get('maxResults')) : undefined;
    const timestamps = query.get('formatOptions.useInt64Timestamp') === 'true';
    send(res, 200, {
      kind: 'bigquery#getQueryResultsResponse',
      etag: `"${jobId}"`,
      ...page(job, offset, maxResults, timestamps),
    });
  }

  function page(
    job: Job,
    offset: number,
    maxResults: number | undefined,
    int64Timestamps: boolean,
  ): Record<string, unknown> {
    const jobReference = { projectId: job.project, jobId: job.id, location: job.location };
    if (job.pendingPolls > 0) {
      job.pendingPolls -= 1;
      return { jobReference, jobComplete: false };
    }
    const size = Math.min(maxResults ?? Infinity, fake.pageRows);
    const rows = job.rows.slice(offset, offset + size);
    const next = offset + rows.length;
    return {
      schema: { fields: job.schema },
      jobReference,
      totalRows: String(job.rows.length),
      ...(next < job.rows.length ? { pageToken: Buffer.from(String(next)).toString('base64url') } : {}),
      rows: rows.map((row) => encodeRow(job.schema, row, int64Timestamps)),
      totalBytesProcessed: String(job.rows.length * 512),
      jobComplete: true,
      cacheHit: false,
    };
  }

  return fake;
}

interface QueryParameter {
  name: string;
  parameterType: { type: string };
  parameterValue: { value: string };
}

interface QueryRequest {
  query: string;
  queryParameters?: QueryParameter[];
  maxResults?: number;
  location?: string;
  formatOptions?: { useInt64Timestamp?: boolean };
}

class QueryError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A named parameter's value and its GoogleSQL type. */
interface Typed {
  type: string;
  value: string;
}

const INT64_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const isDate = (value: string) => {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1;
};
/** The canonical timestamp forms: a date, then optionally a time and a zone (`Z`, `+hh[:mm]`, ` UTC`). */
const TIMESTAMP =
  /^(\d{4}-\d{1,2}-\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?: ?(?:Z|[+-]\d{1,2}(?::\d{2})?|UTC))?$/;
const DATETIME = /^(\d{4}-\d{1,2}-\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether `value` is a valid literal of each scalar parameter type, with BigQuery's message when it is not. */
const PARAMETER_TYPES: Record<string, { valid: (value: string) => boolean; bad: (value: string) => string }> = {
  STRING: { valid: () => true, bad: () => '' },
  INT64: {
    valid: (v) => /^[+-]?\d+$/.test(v) && BigInt(v) >= INT64_RANGE[0] && BigInt(v) <= INT64_RANGE[1],
    bad: (v) => `Bad int64 value: ${v}`,
  },
  FLOAT64: {
    valid: (v) => DECIMAL.test(v) || ['NaN', 'Infinity', '-Infinity', 'inf', '-inf'].includes(v),
    bad: (v) => `Bad double value: ${v}`,
  },
  NUMERIC: { valid: (v) => DECIMAL.test(v), bad: (v) => `Invalid NUMERIC value: ${v}` },
  BOOL: { valid: (v) => /^(?:true|false)$/i.test(v), bad: (v) => `Bad bool value: ${v}` },
  DATE: { valid: isDate, bad: (v) => `Invalid date: '${v}'` },
  DATETIME: {
    valid: (v) => isDate(DATETIME.exec(v)?.[1] ?? ''),
    bad: (v) => `Invalid datetime string "${v}"`,
  },
  TIMESTAMP: {
    valid: (v) => isDate(TIMESTAMP.exec(v)?.[1] ?? ''),
    bad: (v) => `Invalid timestamp: '${v}'`,
  },
};

/** The parameters by name, each checked against its declared type as BigQuery checks them before running anything. */
function typedParameters(parameters: QueryParameter[]): Record<string, Typed> {
  const typed: Record<string, Typed> = {};
  for (const { name, parameterType, parameterValue } of parameters) {
    const type = parameterType?.type;
    const rule = PARAMETER_TYPES[type];
    if (!rule) throw new QueryError(400, 'invalid', `Invalid query parameter type for ${name}: ${String(type)}`);
    const value = parameterValue?.value;
    if (typeof value !== 'string') throw new QueryError(400, 'invalid', `Query parameter ${name} has no value`);
    if (!rule.valid(value)) throw new QueryError(400, 'invalidQuery', rule.bad(value));
    typed[name] = { type, value };
  }
  return typed;
}

/** A legacy schema type (what the export tables declare) as the GoogleSQL type a comparison sees. */
const SQL_TYPE: Record<SchemaField['type'], string> = {
  STRING: 'STRING',
  FLOAT: 'FLOAT64',
  INTEGER: 'INT64',
  TIMESTAMP: 'TIMESTAMP',
  BOOLEAN: 'BOOL',
  RECORD: 'STRUCT',
};
const NUMBERS = ['INT64', 'FLOAT64', 'NUMERIC'];

/** GoogleSQL compares a column with a parameter of the same type, or numbers with numbers; nothing else coerces. */
function comparable(op: string, column: string, parameter: string): void {
  if (column === parameter || (NUMBERS.includes(column) && NUMBERS.includes(parameter))) return;
  throw new QueryError(
    400,
    'invalidQuery',
    `No matching signature for operator ${op} for argument types: ${column}, ${parameter}. Supported signature: ANY ${op} ANY`,
  );
}

const SELECT = /^SELECT (.+) FROM `([^`]+)` WHERE (.+)$/s;

/** Runs the supported SELECT shape: the output schema and the rows as arrays of values in column order. */
function runSelect(
  sql: string,
  params: Record<string, Typed>,
  tables: Map<string, ExportTable>,
  denied: boolean,
): { schema: SchemaField[]; rows: unknown[][] } {
  const m = SELECT.exec(sql.trim());
  if (!m) throw new QueryError(400, 'invalidQuery', `Syntax error: unsupported query: ${sql.slice(0, 80)}`);
  const [, selectList, path, where] = m as unknown as [string, string, string, string];
  const table = tables.get(path);
  if (!table)
    throw new QueryError(404, 'notFound', `Not found: Table ${path.replace('.', ':')} was not found in location US`);
  if (denied) {
    throw new QueryError(
      403,
      'accessDenied',
      `Access Denied: Table ${path.replace('.', ':')}: User does not have permission to query table ${path.replace('.', ':')}, or perhaps it does not exist.`,
    );
  }
  const columns = selectList.split(/,\s*/).map((item) => selectColumn(item, table.schema));
  const conditions = where.split(/\s+AND\s+/).map((c) => condition(c, params, table.schema));
  const rows = table.rows
    .filter((row) => conditions.every((test) => test(row)))
    .map((row) => columns.map((c) => c.value(row)));
  return { schema: columns.map((c) => c.field), rows };
}

function selectColumn(
  item: string,
  schema: SchemaField[],
): { field: SchemaField; value: (row: Record<string, unknown>) => unknown } {
  const m = /^(CAST\(NULL AS STRING\)|[a-z_]+(?:\.[a-z_]+)*)(?: AS ([a-z_]+))?$/.exec(item.trim());
  if (!m) throw new QueryError(400, 'invalidQuery', `Syntax error: unsupported select item ${item}`);
  if (m[1] === 'CAST(NULL AS STRING)') {
    if (!m[2]) throw new QueryError(400, 'invalidQuery', 'Syntax error: a NULL column needs a name');
    return { field: { name: m[2], type: 'STRING', mode: 'NULLABLE' }, value: () => null };
  }
  const segments = m[1]!.split('.');
  const field = resolve(schema, segments);
  return { field: { ...field, name: m[2] ?? segments.at(-1)! }, value: (row) => pick(row, segments) };
}

function condition(
  text: string,
  params: Record<string, Typed>,
  schema: SchemaField[],
): (row: Record<string, unknown>) => boolean {
  const m = /^([A-Za-z_]+(?:\.[a-z_]+)*) (=|>=) @([a-z_]+)$/.exec(text.trim());
  if (!m) throw new QueryError(400, 'invalidQuery', `Syntax error: unsupported condition ${text}`);
  const [, column, op, name] = m as unknown as [string, string, string, string];
  const param = params[name];
  if (param === undefined) throw new QueryError(400, 'invalidQuery', `Query parameter '${name}' not found`);
  if (column === '_PARTITIONTIME') {
    comparable(op, 'TIMESTAMP', param.type);
    const bound = Date.parse(param.value.replace(' ', 'T'));
    if (op !== '>=' || !Number.isFinite(bound))
      throw new QueryError(400, 'invalidQuery', `No matching signature for operator ${op} on _PARTITIONTIME`);
    return (row) => (row._PARTITIONTIME as number) >= bound;
  }
  const segments = column.split('.');
  comparable(op, SQL_TYPE[resolve(schema, segments).type], param.type);
  if (op !== '=') throw new QueryError(400, 'invalidQuery', `unsupported operator ${op} on ${column}`);
  return (row) => pick(row, segments) === param.value;
}

function resolve(schema: SchemaField[], segments: string[]): SchemaField {
  let fields = schema;
  let field: SchemaField | undefined;
  for (const segment of segments) {
    field = fields.find((f) => f.name === segment);
    if (!field) throw new QueryError(400, 'invalidQuery', `Unrecognized name: ${segments.join('.')}`);
    fields = field.fields ?? [];
  }
  return field!;
}

function pick(row: Record<string, unknown>, segments: string[]): unknown {
  let v: unknown = row;
  for (const s of segments) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[s];
  return v ?? null;
}

/** A row in the REST encoding: `{f: [{v}]}`, nested for RECORDs, arrays of `{v}` for REPEATED fields. */
function encodeRow(schema: SchemaField[], values: unknown[], int64Timestamps: boolean): { f: { v: unknown }[] } {
  return { f: schema.map((field, i) => ({ v: encodeValue(field, values[i], int64Timestamps) })) };
}

function encodeValue(field: SchemaField, value: unknown, int64Timestamps: boolean): unknown {
  if (field.mode === 'REPEATED') {
    return ((value as unknown[] | null) ?? []).map((v) => ({
      v: encodeValue({ ...field, mode: 'NULLABLE' }, v, int64Timestamps),
    }));
  }
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'RECORD': {
      const record = value as Record<string, unknown>;
      return encodeRow(
        field.fields ?? [],
        (field.fields ?? []).map((f) => record[f.name]),
        int64Timestamps,
      );
    }
    case 'TIMESTAMP': {
      const ms = Date.parse(String(value));
      return int64Timestamps ? String(ms * 1000) : (ms / 1000).toExponential().toUpperCase().replace('E+', 'E');
    }
    default:
      return String(value);
  }
}

function googleError(res: ServerResponse, code: number, reason: string, message: string): void {
  const status =
    { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND' }[code] ?? 'INTERNAL';
  const detail = {
    message,
    domain: 'global',
    reason,
    ...(code === 401 ? { location: 'Authorization', locationType: 'header' } : {}),
  };
  send(res, code, { error: { code, message, errors: [detail], status } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
