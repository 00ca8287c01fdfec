import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Azure on 127.0.0.1 for the Azure cost source's tests: a Microsoft Entra ID authority (OpenID configuration and the
 * v2.0 token endpoint's client-credentials grant) and Azure Resource Manager's Cost Management Query API
 * (`POST {scope}/providers/Microsoft.CostManagement/query`), both over HTTPS with a certificate made for the run. The
 * Azure SDK refuses bearer tokens over plain HTTP and MSAL refuses non-HTTPS authorities, so the tests trust the
 * certificate through the SDK's supported `agent` option (`fake.agent`) instead of weakening either check.
 *
 * The Query API part aggregates the cost records it holds the way the service does: filtered to the scope and the
 * query's inclusive time period, grouped by day and the requested dimensions, summed as ActualCost or AmortizedCost,
 * answered as `properties.columns` / `properties.rows` (the cost column named after the summed column, `UsageDate` as
 * a `yyyymmdd` number, `Tags` as `"key":"value"` strings when `dataset.include` asks for them, then `Currency`), paged
 * with `properties.nextLink` (`$skiptoken`). Errors are ARM's `{"error": {"code", "message"}}`.
 */
export interface FakeAzure {
  /** The authority host (`azureAuthorityHost`). */
  authority: string;
  /** The Resource Manager endpoint (`azureManagement`). */
  management: string;
  /** The run's certificate (PEM), e.g. for `NODE_EXTRA_CA_CERTS` of a server started as a child process. */
  ca: string;
  /** Trusts the run's certificate: pass as the clients' `agent`. */
  agent: https.Agent;
  tokenRequests: { tenant: string; grantType: string; clientId: string; scope: string }[];
  managementRequests: {
    method: string;
    path: string;
    query: Record<string, string>;
    body: unknown;
    authorization: string | undefined;
  }[];
  /** Registers an app (service principal) in a tenant. */
  app(app: { tenant: string; clientId: string; secret: string }): void;
  /** Gives an app the Cost Management Reader role on a scope. */
  grant(clientId: string, scope: string): void;
  /** Sets the cost records a scope's queries aggregate. */
  setCosts(scope: string, records: CostRecord[]): void;
  /** Rows per page. */
  pageRows: number;
  /** The next query requests are answered 429 with these headers, one entry per request. */
  throttle: Record<string, string>[];
  close(): Promise<void>;
}

/** One resource's cost on one day, in both views; null where the view has no such charge. */
export interface CostRecord {
  date: string;
  resourceId: string;
  serviceName: string;
  location: string;
  chargeType: string;
  pricingModel: string;
  subscriptionId: string;
  tags: Record<string, string>;
  currency: string;
  actual: number | null;
  amortized: number | null;
}

/** The dimensions the Query API accepts for grouping, as its own 400 answer lists them. */
const VALID_GROUPINGS = [
  'ResourceGroup',
  'ResourceGroupName',
  'ResourceLocation',
  'ConsumedService',
  'ResourceType',
  'ResourceId',
  'MeterId',
  'BillingMonth',
  'MeterCategory',
  'MeterSubcategory',
  'Meter',
  'AccountName',
  'DepartmentName',
  'SubscriptionId',
  'SubscriptionName',
  'ServiceName',
  'ServiceTier',
  'EnrollmentAccountName',
  'BillingAccountId',
  'ResourceGuid',
  'BillingPeriod',
  'InvoiceNumber',
  'ChargeType',
  'PublisherType',
  'ReservationId',
  'ReservationName',
  'Frequency',
  'PartNumber',
  'CostAllocationRuleName',
  'MarkupRuleName',
  'PricingModel',
  'BenefitId',
  'BenefitName',
];

const RECORD_FIELD: Record<string, keyof CostRecord> = {
  ResourceId: 'resourceId',
  ServiceName: 'serviceName',
  ResourceLocation: 'location',
  ChargeType: 'chargeType',
  PricingModel: 'pricingModel',
  SubscriptionId: 'subscriptionId',
};

interface Query {
  type?: string;
  timeframe?: string;
  timePeriod?: { from?: string; to?: string };
  dataset?: {
    granularity?: string;
    aggregation?: Record<string, { name?: string; function?: string }>;
    grouping?: { type?: string; name?: string }[];
    include?: string[];
  };
}

export async function fakeAzure(): Promise<FakeAzure> {
  const { key, cert } = selfSignedCertificate();
  const apps = new Map<string, { tenant: string; secret: string }>();
  const grants = new Map<string, Set<string>>();
  const tokens = new Map<string, { clientId: string; audience: string }>();
  const costs = new Map<string, CostRecord[]>();

  const authority = await listen({ key, cert }, (req, res, body) => entra(req, res, body));
  const management = await listen({ key, cert }, (req, res, body) => arm(req, res, body));

  const fake: FakeAzure = {
    authority: authority.origin,
    management: management.origin,
    ca: cert,
    agent: new https.Agent({ ca: cert }),
    tokenRequests: [],
    managementRequests: [],
    app: ({ tenant, clientId, secret }) => apps.set(clientId, { tenant, secret }),
    grant: (clientId, scope) => grants.set(clientId, (grants.get(clientId) ?? new Set()).add(scope.toLowerCase())),
    setCosts: (scope, records) => costs.set(scope.toLowerCase(), records),
    pageRows: 1000,
    throttle: [],
    async close() {
      fake.agent.destroy();
      await Promise.all([authority.close(), management.close()]);
    },
  };

  function entra(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', fake.authority);
    const [tenant, ...rest] = url.pathname.split('/').filter(Boolean);
    const path = rest.join('/');
    const base = `${fake.authority}/${tenant}`;
    if (req.method === 'GET' && path === 'v2.0/.well-known/openid-configuration') {
      return json(res, 200, {
        token_endpoint: `${base}/oauth2/v2.0/token`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        jwks_uri: `${base}/discovery/v2.0/keys`,
        response_modes_supported: ['query', 'fragment', 'form_post'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        issuer: `${base}/v2.0`,
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${base}/oauth2/v2.0/logout`,
        tenant_region_scope: 'EU',
      });
    }
    if (req.method === 'POST' && path === 'oauth2/v2.0/token') {
      const form = new URLSearchParams(body);
      const request = {
        tenant: tenant ?? '',
        grantType: form.get('grant_type') ?? '',
        clientId: form.get('client_id') ?? '',
        scope: form.get('scope') ?? '',
      };
      fake.tokenRequests.push(request);
      const app = apps.get(request.clientId);
      if (!app || app.tenant !== request.tenant) {
        return aadError(
          res,
          400,
          'unauthorized_client',
          700016,
          `AADSTS700016: Application with identifier '${request.clientId}' was not found in the directory '${request.tenant}'.`,
        );
      }
      if (form.get('client_secret') !== app.secret) {
        return aadError(
          res,
          401,
          'invalid_client',
          7000215,
          `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${request.clientId}'.`,
        );
      }
      const audience = request.scope.replace(/\/\.default$/, '');
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { clientId: request.clientId, audience });
      return json(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }
    json(res, 404, { error: 'not_found' });
  }

  function arm(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', fake.management);
    let parsed: unknown = null;
    try {
      parsed = body ? JSON.parse(body) : null;
    } catch {
      // recorded as null; answered below
    }
    fake.managementRequests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: parsed,
      authorization: req.headers.authorization,
    });

    const token = tokens.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (!token || token.audience !== fake.management) {
      return armError(res, 401, 'InvalidAuthenticationToken', 'The access token is invalid.');
    }
    const m = /^(.*)\/providers\/Microsoft\.CostManagement\/query$/i.exec(url.pathname);
    if (req.method !== 'POST' || !m)
      return armError(res, 404, 'NotFound', `No route for ${req.method} ${url.pathname}`);
    if (!url.searchParams.get('api-version'))
      return armError(
        res,
        400,
        'MissingApiVersionParameter',
        'The api-version query parameter (?api-version=) is required for all requests.',
      );
    const scope = m[1]!;
    if (!grants.get(token.clientId)?.has(scope.toLowerCase())) {
      return armError(
        res,
        403,
        'AuthorizationFailed',
        `The client '${token.clientId}' with object id '${token.clientId}' does not have authorization to perform action 'Microsoft.CostManagement/query/action' over scope '${scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
      );
    }
    const throttled = fake.throttle.shift();
    if (throttled) {
      res.writeHead(429, { 'content-type': 'application/json', ...throttled });
      return void res.end(JSON.stringify({ error: { code: '429', message: 'Too many requests. Please retry.' } }));
    }
    query(res, scope, parsed as Query, url);
  }

  function query(res: ServerResponse, scope: string, q: Query, url: URL): void {
    const invalid = (why: string) => armError(res, 400, 'BadRequest', `Invalid query definition: ${why}`);
    if (!q || !['ActualCost', 'AmortizedCost'].includes(q.type ?? ''))
      return invalid(`Invalid query type: '${q?.type}'`);
    if (q.timeframe !== 'Custom' || !q.timePeriod?.from || !q.timePeriod.to)
      return invalid('a Custom timeframe needs timePeriod.from and timePeriod.to');
    if (q.dataset?.granularity !== 'Daily') return invalid(`unsupported granularity ${q.dataset?.granularity}`);
    const aggregations = Object.entries(q.dataset.aggregation ?? {});
    if (
      aggregations.length !== 1 ||
      aggregations[0]![1].function !== 'Sum' ||
      !['Cost', 'PreTaxCost'].includes(aggregations[0]![1].name ?? '')
    ) {
      return invalid('the aggregation must sum Cost or PreTaxCost');
    }
    const dimensions = (q.dataset.grouping ?? []).map((g) => g.name ?? '');
    const bad = dimensions.find((d) => !VALID_GROUPINGS.includes(d));
    if (bad !== undefined)
      return invalid(
        `Invalid dataset grouping: '${bad}'; valid values: ${VALID_GROUPINGS.map((v) => `'${v}'`).join(',')}.`,
      );
    const unsupported = dimensions.find((d) => !(d in RECORD_FIELD));
    if (unsupported) return invalid(`grouping by ${unsupported} is not held by this fake`);
    const withTags = q.dataset.include?.includes('Tags') === true;

    const from = q.timePeriod.from.slice(0, 10);
    const to = q.timePeriod.to.slice(0, 10);
    const view = q.type === 'ActualCost' ? 'actual' : 'amortized';
    const groups = new Map<string, { record: CostRecord; cost: number }>();
    for (const record of costs.get(scope.toLowerCase()) ?? []) {
      const cost = record[view];
      if (cost === null || record.date < from || record.date > to) continue;
      const key = [record.date, record.currency, ...dimensions.map((d) => record[RECORD_FIELD[d]!])].join('|');
      const group = groups.get(key);
      if (group) group.cost += cost;
      else groups.set(key, { record, cost });
    }
    const rows = [...groups.values()].map(({ record, cost }) => [
      Math.round(cost * 1e8) / 1e8,
      Number(record.date.replaceAll('-', '')),
      ...dimensions.map((d) => record[RECORD_FIELD[d]!]),
      ...(withTags ? [Object.entries(record.tags).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)] : []),
      record.currency,
    ]);
    const offset = Number(
      url.searchParams.get('$skiptoken') ? Buffer.from(url.searchParams.get('$skiptoken')!, 'base64url').toString() : 0,
    );
    const page = rows.slice(offset, offset + fake.pageRows);
    const more = offset + page.length < rows.length;
    const next = new URL(url.href);
    next.searchParams.set('$skiptoken', Buffer.from(String(offset + page.length)).toString('base64url'));
    const id = randomUUID();
    json(res, 200, {
      id: `${scope}/providers/Microsoft.CostManagement/query/${id}`,
      name: id,
      type: 'Microsoft.CostManagement/query',
      location: null,
      sku: null,
      eTag: null,
      properties: {
        nextLink: more ? next.href : null,
        columns: [
          { name: aggregations[0]![1].name, type: 'Number' },
          { name: 'UsageDate', type: 'Number' },
          ...dimensions.map((name) => ({ name, type: 'String' })),
          ...(withTags ? [{ name: 'Tags', type: 'String' }] : []),
          { name: 'Currency', type: 'String' },
        ],
        rows: page,
      },
    });
  }

  return fake;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function armError(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { error: { code, message } });
}

function aadError(res: ServerResponse, status: number, error: string, code: number, description: string): void {
  json(res, status, {
    error,
    error_description: `${description}\r\nTrace ID: ${randomUUID()}\r\nCorrelation ID: ${randomUUID()}\r\nTimestamp: ${new Date().toISOString()}`,
    error_codes: [code],
    timestamp: new Date().toISOString().replace('T', ' ').replace('Z', ''),
    trace_id: randomUUID(),
    correlation_id: randomUUID(),
  });
}

async function listen(
  tls: { key: string; cert: string },
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A self-signed certificate for 127.0.0.1, valid for a day: a DER-encoded X.509 v3 certificate (ECDSA P-256,
 * SHA-256) built with node:crypto alone, so the tests need no openssl binary.
 */
function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from('svc test Azure')))));
  const algorithm = seq(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.concat([Buffer.from([1]), randomBytes(8)])),
    algorithm,
    name,
    seq(utcTime(now - 3_600_000), utcTime(now + 86_400_000)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(
      0xa3,
      seq(
        // basicConstraints (critical): CA, so the certificate is its own trust anchor.
        seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, seq(der(0x01, Buffer.from([0xff]))))),
        // subjectAltName: IP 127.0.0.1, DNS localhost.
        seq(
          oid('2.5.29.17'),
          der(0x04, seq(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost')))),
        ),
      ),
    ),
  );
  const certificate = seq(
    tbs,
    algorithm,
    der(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', tbs, privateKey)])),
  );
  const base64 = certificate
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`,
  };
}

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

function seq(...content: Buffer[]): Buffer {
  return der(0x30, ...content);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [first * 40 + second];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(ms: number): Buffer {
  return der(0x17, Buffer.from(`${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`));
}
