import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { IncidentStore } from '../incidents/store';
import type { SecretBox } from '../secrets/secret-box';
import type { IntegrationStore } from '../integrations/store';
import type { KindRegistry } from './kinds/registry';
import type { Outbox } from './outbox/worker';

/** What the notification and incident routes share. */
export interface NotifyServices {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  kinds: KindRegistry;
  integrations: IntegrationStore;
  incidents: IncidentStore;
  outbox: Outbox;
  publicUrl: () => string;
  /** `--allow-private-targets`: channels may name loopback and private addresses. */
  allowPrivateTargets: boolean;
}
