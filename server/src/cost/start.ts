import type { Clock } from '../clock';
import type { DatabaseHandle } from '../db/connect';
import type { SecretBox } from '../secrets/secret-box';
import { costImpactOf } from './impact';
import type { CostServices } from './services';
import { s3PathStyle } from './sources/aws/s3-addressing';
import { providerKinds } from './sources/registry';
import type { CostEndpoints } from './sources/types';
import { startCostSync, type CostSyncOptions } from './sync/runner';

export interface CostOptions {
  /** Cloud API addresses when not the public ones (S3-compatible stores, sovereign clouds, local test servers). */
  endpoints?: CostEndpoints;
  /** Sync worker tuning, for tests and benchmarks. */
  sync?: CostSyncOptions;
}

/** Cost tracking for one server process: the provider kinds and the daily sync worker. */
export function startCost(
  database: DatabaseHandle,
  clock: Clock,
  box: SecretBox,
  log: (line: string) => void,
  options: CostOptions = {},
): CostServices {
  const kinds = providerKinds();
  const endpoints = options.endpoints ?? {};
  // Read once at start: the AWS SDK's endpoint variables decide S3 addressing, and a bad setting stops the server here.
  const env = {
    endpoints: { ...endpoints, s3ForcePathStyle: endpoints.s3ForcePathStyle ?? s3PathStyle(endpoints, process.env) },
    log,
  };
  const sync = startCostSync({ db: database.db, dialect: database.dialect, clock, box, kinds, env, log }, options.sync);
  return { db: database.db, clock, box, kinds, sync, impactOf: costImpactOf(database.db, clock) };
}
