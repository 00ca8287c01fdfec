import type { Clock } from '../../server/src/clock';
import { createIncidentStore, type IncidentStore } from '../../server/src/incidents/store';
import type { TestServer } from './server';

/** The incident store of an in-process test server, with notifications and cost left out: detection suites' subject. */
export function detectionIncidentStore(t: TestServer, clock: Clock): IncidentStore {
  return createIncidentStore({
    db: t.server.database.db,
    clock,
    dashboardUrl: (_projectId, id) => `${t.server.publicUrl}/incidents/${id}`,
    onEvent: async () => undefined,
    afterEvent: () => undefined,
    costImpact: async () => null,
  });
}
