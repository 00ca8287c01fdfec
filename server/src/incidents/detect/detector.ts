import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import type { Symbolicator } from '../../sourcemaps/types';
import type { IncidentCommands, IncidentView } from '../types';
import { consumeBatch } from './consume';
import { burstSoFar, burstToOpen, escalationReason, headlineOf, isQuiet } from './decisions';
import { gatherEvidence, type EvidenceSources } from './evidence';
import {
  appNames,
  candidateGroups,
  forgetSessions,
  groupKey,
  setGroupIncident,
  type DetectionDb,
  type GroupRef,
  type GroupRow,
} from './groups';
import { incidentTitle, rootCauseSummary } from './root-cause';
import { detectionOptions, severityOf, type DetectionOptions } from './thresholds';

export interface DetectorDeps {
  db: Kysely<Database>;
  clock: Clock;
  commands: IncidentCommands;
  /** Base URL of the server, for replay and issue links. */
  publicUrl: string;
  /** Signs the issue page links of regression notices (the server's secret box). */
  box: SecretBox;
  /** Groups errors on their original frames where maps exist; without one, stacks are grouped as sent. */
  symbolicator?: Symbolicator;
  options?: Partial<DetectionOptions>;
}

/** What one run did; incident ids per move. */
export interface DetectionReport {
  /** Rows of `logs` and `spans` read and counted. */
  logsRead: number;
  spansRead: number;
  /** Error records and exception events counted. */
  errors: number;
  opened: string[];
  escalated: string[];
  resolved: string[];
  /** Incidents whose evidence was refreshed (no notification). */
  updated: string[];
}

export interface Detector {
  readonly options: DetectionOptions;
  /** Counts the errors ingested since the last run (of any process) and opens, escalates, updates and resolves incidents. */
  runOnce(): Promise<DetectionReport>;
}

/** What one run works with: the deps, the options in force, and where evidence is read. */
interface Run {
  deps: DetectorDeps;
  db: DetectionDb;
  options: DetectionOptions;
  sources: EvidenceSources;
  appName: (appId: string) => Promise<string>;
  now: number;
  report: DetectionReport;
}

/** Opens an incident for a group without one whose burst reached the threshold. */
async function maybeOpen(run: Run, group: GroupRow): Promise<void> {
  const { options, now } = run;
  const burst = burstToOpen(group, options, now);
  if (burst === undefined) return;
  const { evidence, failingTotal } = await gatherEvidence(run.sources, group, burst);
  const headline = headlineOf(group);
  const { id, created } = await run.deps.commands.open({
    projectId: group.project_id,
    title: incidentTitle(headline),
    severity: severityOf(burst.errorCount, evidence.affected_sessions, options),
    env: group.env,
    services: [await run.appName(group.app_id)],
    rootCauseSummary: rootCauseSummary(headline, evidence, failingTotal),
    fingerprint: group.fingerprint,
    evidence,
    assigneeId: group.assignee_id,
  });
  await setGroupIncident(run.db, group, {
    incident_id: id,
    incident_base_total: group.total_count - burst.errorCount,
    incident_open_count: burst.errorCount,
  });
  if (created) run.report.opened.push(id);
}

/** Follows a group's open incident: resolves it when quiet, else escalates it if it should and refreshes its evidence. */
async function follow(run: Run, group: GroupRow, incident: IncidentView, touched: boolean): Promise<void> {
  const { db, options, report } = run;
  const { commands } = run.deps;
  if (group.incident_id !== incident.id) {
    // Opened by another process that has not recorded it yet, or before a crash.
    await setGroupIncident(db, group, {
      incident_id: incident.id,
      incident_base_total: group.reset_total,
      incident_open_count: options.threshold,
    });
  }
  if (isQuiet(group, options, run.now)) {
    await commands.resolve(group.project_id, incident.id, 'detector');
    await setGroupIncident(db, group, { incident_id: null, reset_total: group.total_count });
    report.resolved.push(incident.id);
    return;
  }
  if (!touched) return;
  const reason = escalationReason(group, incident, options, run.now);
  if (reason !== undefined) {
    const moved = await commands.escalate(group.project_id, incident.id, reason);
    if (moved?.status === 'escalated') report.escalated.push(incident.id);
  }
  const { evidence, failingTotal } = await gatherEvidence(run.sources, group, burstSoFar(group, incident, options));
  await commands.update(
    group.project_id,
    incident.id,
    evidence,
    rootCauseSummary(headlineOf(group), evidence, failingTotal),
  );
  report.updated.push(incident.id);
}

async function evaluate(run: Run, group: GroupRow, touched: boolean): Promise<void> {
  const ref: GroupRef = { projectId: group.project_id, fingerprint: group.fingerprint };
  const incident = await run.deps.commands.findOpen(ref.projectId, ref.fingerprint);
  if (incident) return follow(run, group, incident, touched);
  let current = group;
  if (group.incident_id !== null) {
    // Resolved elsewhere (a person, or another process): what was counted so far belongs to that incident.
    current = { ...group, incident_id: null, reset_total: group.total_count };
    await setGroupIncident(run.db, group, { incident_id: null, reset_total: group.total_count });
  }
  await forgetSessions(run.db, ref, run.now - run.options.windowMs);
  if (touched) await maybeOpen(run, current);
}

const emptyReport = (): DetectionReport => ({
  logsRead: 0,
  spansRead: 0,
  errors: 0,
  opened: [],
  escalated: [],
  resolved: [],
  updated: [],
});

/** Counts every batch of new errors (consume.ts): the groups they touched, by key. */
async function consumeAll(deps: DetectorDeps, options: DetectionOptions, report: DetectionReport) {
  const touched = new Map<string, GroupRef>();
  for (let more = true; more; ) {
    const batch = await consumeBatch(deps.db, deps.clock.now(), options, {
      symbolicator: deps.symbolicator,
      publicUrl: deps.publicUrl,
      box: deps.box,
    });
    report.logsRead += batch.logsRead;
    report.spansRead += batch.spansRead;
    report.errors += batch.errors;
    for (const ref of batch.touched) touched.set(groupKey(ref), ref);
    more = batch.more;
  }
  return touched;
}

/**
 * The incident detector: error logs and exception events grouped by fingerprint per app and environment (groups.ts);
 * an incident opens when a group reaches the threshold within the window, escalates once when it keeps growing or
 * persists, and resolves after the quiet period (decisions.ts). Safe to run in several processes at once: counting is
 * serialised by the shared cursors, and every incident move is idempotent in the store.
 */
export function createDetector(deps: DetectorDeps): Detector {
  const options = detectionOptions(deps.options);
  const db: DetectionDb = deps.db;
  const sources: EvidenceSources = { db, publicUrl: deps.publicUrl, windowMs: options.windowMs };
  const appName = appNames(db);
  return {
    options,
    async runOnce() {
      const report = emptyReport();
      const touched = await consumeAll(deps, options, report);
      const run: Run = { deps, db, options, sources, appName, now: deps.clock.now(), report };
      for (const group of await candidateGroups(db, touched.values())) {
        await evaluate(
          run,
          group,
          touched.has(groupKey({ projectId: group.project_id, fingerprint: group.fingerprint })),
        );
      }
      return report;
    },
  };
}
