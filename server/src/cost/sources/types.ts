import type { BillingSource } from '../model';

export const PROVIDERS = ['aws', 'gcp', 'azure'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * Where the cloud APIs are, when not at their public addresses: S3-compatible stores, sovereign clouds, and the local
 * servers the tests run. A server-wide setting (startServer's `cost.endpoints`), never part of a connection's config,
 * so a control key cannot point the server at an internal address.
 */
export interface CostEndpoints {
  /** S3 endpoint, e.g. `http://127.0.0.1:4569`; path-style addressing is used when set. */
  s3?: string;
  /**
   * Address buckets path-style (`host/bucket`) rather than as `bucket.host`. Default: true when a custom S3 endpoint is
   * set here or in `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`; `AWS_S3_FORCE_PATH_STYLE` overrides (aws/s3-addressing.ts).
   */
  s3ForcePathStyle?: boolean;
  /** STS endpoint. */
  sts?: string;
  /** BigQuery API root, e.g. `http://127.0.0.1:9050` (the client appends `/bigquery/v2`). */
  bigquery?: string;
  /** Azure Resource Manager endpoint (default `https://management.azure.com`). */
  azureManagement?: string;
  /** Microsoft Entra ID authority host (default `https://login.microsoftonline.com`). */
  azureAuthorityHost?: string;
}

export interface SourceEnv {
  endpoints: CostEndpoints;
  log: (line: string) => void;
}

/** A config that passed validation: what may be shown, and what is sealed and never shown. */
export interface ParsedProviderConfig<C, S> {
  config: C;
  secrets: S;
}

/**
 * One cloud: how its connection config is validated and shown, and how its billing data is read. `parse` throws
 * `invalid` (shared/domain-errors.ts) naming the field as `config.<field>`; `publicConfig` never includes a credential or
 * role detail.
 */
export interface ProviderKind<C = unknown, S = unknown> {
  parse(raw: unknown): ParsedProviderConfig<C, S>;
  publicConfig(config: C): Record<string, unknown>;
  source(config: C, secrets: S, env: SourceEnv): BillingSource;
}
