import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { CostImpactOf } from '../incidents/types';
import type { Database } from '../db/schema';
import type { SecretBox } from '../secrets/secret-box';
import type { ProviderKind, ProviderName } from './sources/types';
import type { CostSync } from './sync/runner';

/** What the cost routes and the incident cost impact share. */
export interface CostServices {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  kinds: Record<ProviderName, ProviderKind>;
  sync: CostSync;
  /** The cost impact shown in an incident's detail. */
  impactOf: CostImpactOf;
}
