import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle, DialectName } from './connect';
import { initMigration } from './migrations/0001-init';
import { incidentsMigration } from './migrations/0002-incidents-notifications';
import { detectionMigration } from './migrations/0003-detection';
import { costMigration } from './migrations/0004-cost';
import { ingestIdempotencyMigration } from './migrations/0005-ingest-idempotency';
import { detectionGapsMigration } from './migrations/0006-detection-gaps';
import { costChargeTypeMigration } from './migrations/0010-cost-charge-type';
import { issuesMigration } from './migrations/0011-issues';
import { sourcemapsMigration } from './migrations/0012-sourcemaps';
import { issueAnalysesMigration } from './migrations/0013-issue-analyses';
import { repositoriesMigration } from './migrations/0014-repositories';
import { sessionIdentityMigration } from './migrations/0015-session-identity';
import { sessionConsoleMigration } from './migrations/0016-session-console';
import { vitalsIndexMigration } from './migrations/0017-vitals-index';
import { testRunsMigration } from './migrations/0018-test-runs';
import { testTrafficMigration } from './migrations/0019-test-traffic';
import { ingestSetupHealthMigration } from './migrations/0020-ingest-setup-health';
import { issueMergesMigration } from './migrations/0021-issue-merges';
import { issueBreakdownMigration } from './migrations/0022-issue-breakdown';
import { teamsMigration } from './migrations/0023-teams';
import { assigneesMigration } from './migrations/0024-assignees';
import { organisationSsoMigration } from './migrations/0025-organisation-sso';
import { projectRetentionMigration } from './migrations/0026-project-retention';
import { ingestLimitsMigration } from './migrations/0027-ingest-limits';
import { metricPointUidMigration } from './migrations/0028-metric-point-uid';
import { erasuresMigration } from './migrations/0029-erasures';
import { replayObjectsMigration } from './migrations/0030-replay-objects';
import { summariesMigration } from './migrations/0031-summaries';
import { timePartitionsMigration } from './migrations/0032-time-partitions';
import { listingIndexesMigration } from './migrations/0033-listing-indexes';
import { metricRouteEnvMigration } from './migrations/0034-metric-route-env';
import { alertRulesMigration } from './migrations/0035-alert-rules';
import { vitalRollupsMigration } from './migrations/0037-vital-rollups';
import { facetActivityIndexesMigration } from './migrations/0038-facet-activity-indexes';
import { samplingCoveringIndexMigration } from './migrations/0039-sampling-covering-index';

/** Migrations are code, not files on disk, so they survive bundling. Names sort in the order they apply. */
function migrationsFor(handle: Pick<DatabaseHandle, 'dialect'>): Record<string, Migration> {
  return {
    '0001-init': initMigration(handle.dialect),
    '0002-incidents-notifications': incidentsMigration(handle.dialect),
    '0003-detection': detectionMigration(handle.dialect),
    '0004-cost': costMigration(handle.dialect),
    '0005-ingest-idempotency': ingestIdempotencyMigration(handle.dialect),
    '0006-detection-gaps': detectionGapsMigration(),
    '0010-cost-charge-type': costChargeTypeMigration(handle.dialect),
    '0011-issues': issuesMigration(),
    '0012-sourcemaps': sourcemapsMigration(handle.dialect),
    '0013-issue-analyses': issueAnalysesMigration(handle.dialect),
    '0014-repositories': repositoriesMigration(),
    '0015-session-identity': sessionIdentityMigration(),
    '0016-session-console': sessionConsoleMigration(),
    '0017-vitals-index': vitalsIndexMigration(),
    '0018-test-runs': testRunsMigration(),
    '0019-test-traffic': testTrafficMigration(),
    '0020-ingest-setup-health': ingestSetupHealthMigration(),
    '0021-issue-merges': issueMergesMigration(),
    '0022-issue-breakdown': issueBreakdownMigration(),
    '0023-teams': teamsMigration(handle.dialect),
    '0024-assignees': assigneesMigration(),
    '0025-organisation-sso': organisationSsoMigration(),
    '0026-project-retention': projectRetentionMigration(),
    '0027-ingest-limits': ingestLimitsMigration(),
    '0028-metric-point-uid': metricPointUidMigration(),
    '0029-erasures': erasuresMigration(),
    '0030-replay-objects': replayObjectsMigration(),
    '0031-summaries': summariesMigration(handle.dialect),
    '0032-time-partitions': timePartitionsMigration(handle.dialect),
    '0033-listing-indexes': listingIndexesMigration(handle.dialect),
    '0034-metric-route-env': metricRouteEnvMigration(handle.dialect),
    '0035-alert-rules': alertRulesMigration(),
    '0037-vital-rollups': vitalRollupsMigration(),
    '0038-facet-activity-indexes': facetActivityIndexesMigration(),
    '0039-sampling-covering-index': samplingCoveringIndexMigration(handle.dialect),
  };
}

/** The names of the migrations this version knows: a database that ran any other was made by a newer version. */
export function knownMigrations(dialect: DialectName): string[] {
  return Object.keys(migrationsFor({ dialect }));
}

/** Applies every pending migration; throws with the failing migration's name if one fails. */
export function migrateToLatest(handle: DatabaseHandle): Promise<void> {
  return migrate(handle, (m) => m.migrateToLatest());
}

/** Applies the migrations up to `last` and stops there: an older version's schema, for tests of a later upgrade. */
export function migrateUpTo(handle: DatabaseHandle, last: string): Promise<void> {
  return migrate(handle, (m) => m.migrateTo(last));
}

async function migrate(handle: DatabaseHandle, run: (migrator: Migrator) => Promise<MigrationResultSet>) {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(handle) };
  // Numbers are handed out to changes made side by side, which land in any order: a database that ran a later one
  // still runs an earlier one that came after it (each migration depends only on those before its own number).
  const { error, results } = await run(new Migrator({ db: handle.db, provider, allowUnorderedMigrations: true }));
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
