import { analysisLink } from '../ai/incident-analysis';
import type { Clock } from '../clock';
import type { DatabaseHandle } from '../db/connect';
import { incidentLinks } from '../incidents/links';
import { createIncidentStore } from '../incidents/store';
import type { CostImpactOf } from '../incidents/types';
import type { SecretBox } from '../secrets/secret-box';
import { incidentNotice } from './deliveries/notice';
import { createGuardedHttp } from './http/guarded-http';
import { integrationStore } from '../integrations/store';
import { channelKinds } from './kinds/registry';
import { scheduleDeliveries } from './outbox/schedule';
import { startOutbox, type OutboxOptions } from './outbox/worker';
import type { NotifyServices } from './services';

export interface NotifyOptions {
  /** Seals channel secrets and signs links. */
  box: SecretBox;
  /** An incident's cost impact, from cost tracking. */
  costImpact: CostImpactOf;
  allowPrivateTargets?: boolean;
  outbox?: OutboxOptions;
}

/**
 * Incidents and notifications for one server process: the secret box, the incident store (whose events write their
 * deliveries), and the outbox worker that sends them. `publicUrl` is asked when links are made: it is known once the
 * server listens.
 */
export function startNotifications(
  database: DatabaseHandle,
  clock: Clock,
  publicUrl: () => string,
  log: (line: string) => void,
  options: NotifyOptions,
): NotifyServices {
  const { db } = database;
  const { box } = options;
  const links = () => incidentLinks(box, publicUrl(), clock.now());
  const integrations = integrationStore(db, box, clock);
  const allowPrivateTargets = options.allowPrivateTargets ?? false;
  const kinds = channelKinds({ allowPrivateTargets });
  // The outbox is started below; incident events only need to wake it once it exists.
  let wake = (): void => undefined;
  const incidents = createIncidentStore({
    db,
    clock,
    dashboardUrl: (projectId, id) => links().dashboardUrl(projectId, id),
    costImpact: options.costImpact,
    onEvent: scheduleDeliveries,
    afterEvent: () => wake(),
  });
  const outbox = startOutbox(
    {
      db,
      dialect: database.dialect,
      clock,
      box,
      http: createGuardedHttp({ allowPrivateTargets }),
      kinds,
      integrations,
      noticeFor: (delivery) =>
        incidentNotice(incidents, links(), delivery, (projectId, incident) => analysisLink(db, projectId, incident)),
      log,
    },
    options.outbox,
  );
  wake = () => outbox.wake();
  return { db, clock, box, kinds, integrations, incidents, outbox, publicUrl, allowPrivateTargets };
}
