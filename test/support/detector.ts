import type { Clock } from '../../server/src/clock';
import { createDetector, type Detector } from '../../server/src/incidents/detect/detector';
import type { DetectionOptions } from '../../server/src/incidents/detect/thresholds';
import { createSymbolicator } from '../../server/src/sourcemaps/symbolicate';
import { detectionIncidentStore } from './incident-store';
import type { TestServer } from './server';

/** The incident detector of an in-process test server, symbolicating with its stored maps: how issues suites group errors. */
export function issueDetector(t: TestServer, clock: Clock, options?: Partial<DetectionOptions>): Detector {
  const db = t.server.database.db;
  return createDetector({
    db,
    clock,
    commands: detectionIncidentStore(t, clock),
    publicUrl: t.server.publicUrl,
    box: t.server.notify.box,
    symbolicator: createSymbolicator({ db }),
    options,
  });
}
