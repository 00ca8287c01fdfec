import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import type { Symbolicator } from '../../sourcemaps/types';
import type { IncidentCommands, IncidentView } from '../types';
import { countInWindow, firstEventInWindow, type Buckets } from './buckets';
import { consumeBatch } from './consume';
import { gatherEvidence, type EvidenceSources } from './evidence';
import { forgetSessions, type DetectionDb, type GroupRef, type GroupRow } from './groups';
import { incidentTitle, rootCauseSummary, type ErrorHeadline } from './root-cause';
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

const groupKey = (ref: GroupRef) => `${ref.projectId}\n${ref.fingerprint}`;
/** Fingerprints per `in (…)` list. */
const CHUNK = 500;

/**
 * The incident detector: error logs and exception events grouped by fingerprint per app and environment (groups.ts);
 * an incident opens when a group reaches the threshold within the window, escalates once when it keeps growing or
 * persists, and resolves after the quiet period. Safe to run in several processes at once: counting is serialised by
 * the shared cursors, and every incident move is idempotent in the store.
 */
export function createDetector(deps: DetectorDeps): Detector {
  const options = detectionOptions(deps.options);
  const db: DetectionDb = deps.db;
  const { commands, clock } = deps;
  const sources: EvidenceSources = { db, publicUrl: deps.publicUrl, windowMs: options.windowMs };

  const setIncident = (
    group: GroupRow,
    changes: Partial<Pick<GroupRow, 'incident_id' | 'incident_base_total' | 'incident_open_count' | 'reset_total'>>,
  ) =>
    db
      .updateTable('detection_groups')
      .set(changes)
      .where('project_id', '=', group.project_id)
      .where('fingerprint', '=', group.fingerprint)
      .execute();

  const appNames = new Map<string, string>();
  const appName = async (appId: string) => {
    let name = appNames.get(appId);
    if (name === undefined) {
      name = (await db.selectFrom('apps').select('name').where('id', '=', appId).executeTakeFirst())?.name ?? appId;
      appNames.set(appId, name);
    }
    return name;
  };

  const headlineOf = (group: GroupRow): ErrorHeadline => ({
    errorType: group.error_type,
    sampleMessage: group.sample_message,
    topFile: group.top_file,
  });
  const windowCountOf = (group: GroupRow, now: number) =>
    countInWindow(JSON.parse(group.buckets) as Buckets, options.windowMs, now);

  /** Groups that got errors in this run, and those with an open incident (which may have gone quiet). */
  async function candidates(touched: Map<string, GroupRef>): Promise<GroupRow[]> {
    const rows = await db.selectFrom('detection_groups').selectAll().where('incident_id', 'is not', null).execute();
    const fingerprints = [...new Set([...touched.values()].map((r) => r.fingerprint))];
    for (let i = 0; i < fingerprints.length; i += CHUNK) {
      const chunk = fingerprints.slice(i, i + CHUNK);
      rows.push(...(await db.selectFrom('detection_groups').selectAll().where('fingerprint', 'in', chunk).execute()));
    }
    const unique = new Map(rows.map((r) => [groupKey({ projectId: r.project_id, fingerprint: r.fingerprint }), r]));
    return [...unique.values()];
  }

  async function maybeOpen(group: GroupRow, now: number, report: DetectionReport): Promise<void> {
    // Ignoring an issue silences it (docs/issues.md, "Statuses"): its errors are counted, its bursts page no one.
    if (group.status === 'ignored') return;
    // Errors counted before the last incident ended belong to it.
    const windowCount = Math.min(windowCountOf(group, now), group.total_count - group.reset_total);
    if (windowCount < options.threshold) return;
    // Buckets kept before event times were: the burst is taken to fill the window.
    const startedMs =
      firstEventInWindow(JSON.parse(group.buckets) as Buckets, options.windowMs, now) ??
      group.last_seen_ms - options.windowMs;
    const { evidence, failingTotal } = await gatherEvidence(sources, group, {
      errorCount: windowCount,
      startedMs,
      sessionsSinceMs: now - options.windowMs,
    });
    const headline = headlineOf(group);
    const { id, created } = await commands.open({
      projectId: group.project_id,
      title: incidentTitle(headline),
      severity: severityOf(windowCount, evidence.affected_sessions, options),
      env: group.env,
      services: [await appName(group.app_id)],
      rootCauseSummary: rootCauseSummary(headline, evidence, failingTotal),
      fingerprint: group.fingerprint,
      evidence,
    });
    await setIncident(group, {
      incident_id: id,
      incident_base_total: group.total_count - windowCount,
      incident_open_count: windowCount,
    });
    if (created) report.opened.push(id);
  }

  /** Why an incident that is still only `detected` should escalate, if it should. */
  function escalationReason(group: GroupRow, incident: IncidentView, now: number): string | undefined {
    const windowCount = windowCountOf(group, now);
    const baseline = Math.max(group.incident_open_count, options.threshold);
    if (windowCount >= options.growthFactor * baseline) {
      return `still growing: ${windowCount} errors in the last window, ${options.growthFactor}× the ${baseline} at detection`;
    }
    const detectedMs = Date.parse(incident.detected_at);
    if (group.last_received_ms - detectedMs >= options.persistMs)
      return `errors still arriving ${Math.round((group.last_received_ms - detectedMs) / 60_000)} minutes after detection`;
    return undefined;
  }

  async function follow(
    group: GroupRow,
    incident: IncidentView,
    touched: boolean,
    now: number,
    report: DetectionReport,
  ): Promise<void> {
    if (group.incident_id !== incident.id) {
      // Opened by another process that has not recorded it yet, or before a crash.
      await setIncident(group, {
        incident_id: incident.id,
        incident_base_total: group.reset_total,
        incident_open_count: options.threshold,
      });
    }
    if (now - group.last_received_ms >= options.quietMs) {
      await commands.resolve(group.project_id, incident.id, 'detector');
      await setIncident(group, { incident_id: null, reset_total: group.total_count });
      report.resolved.push(incident.id);
      return;
    }
    if (!touched) return;
    const reason =
      incident.status === 'detected' && group.status !== 'ignored' ? escalationReason(group, incident, now) : undefined;
    if (reason !== undefined) {
      const moved = await commands.escalate(group.project_id, incident.id, reason);
      if (moved?.status === 'escalated') report.escalated.push(incident.id);
    }
    const episodeStart = Date.parse(incident.detected_at) - options.windowMs;
    // The burst began where it did at detection (incidents opened before that was kept: with their window).
    const started = incident.evidence?.burst_started_at;
    const burst = {
      errorCount: group.total_count - group.incident_base_total,
      startedMs: started === undefined ? episodeStart : Date.parse(started),
      sessionsSinceMs: episodeStart,
    };
    const { evidence, failingTotal } = await gatherEvidence(sources, group, burst);
    await commands.update(
      group.project_id,
      incident.id,
      evidence,
      rootCauseSummary(headlineOf(group), evidence, failingTotal),
    );
    report.updated.push(incident.id);
  }

  async function evaluate(group: GroupRow, touched: boolean, now: number, report: DetectionReport): Promise<void> {
    const ref: GroupRef = { projectId: group.project_id, fingerprint: group.fingerprint };
    const incident = await commands.findOpen(ref.projectId, ref.fingerprint);
    if (incident) return follow(group, incident, touched, now, report);
    let current = group;
    if (group.incident_id !== null) {
      // Resolved elsewhere (a person, or another process): what was counted so far belongs to that incident.
      current = { ...group, incident_id: null, reset_total: group.total_count };
      await setIncident(group, { incident_id: null, reset_total: group.total_count });
    }
    await forgetSessions(db, ref, now - options.windowMs);
    if (touched) await maybeOpen(current, now, report);
  }

  return {
    options,
    async runOnce() {
      const report: DetectionReport = {
        logsRead: 0,
        spansRead: 0,
        errors: 0,
        opened: [],
        escalated: [],
        resolved: [],
        updated: [],
      };
      const touched = new Map<string, GroupRef>();
      for (let more = true; more; ) {
        const batch = await consumeBatch(db, clock.now(), options, {
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
      const now = clock.now();
      for (const group of await candidates(touched)) {
        await evaluate(
          group,
          touched.has(groupKey({ projectId: group.project_id, fingerprint: group.fingerprint })),
          now,
          report,
        );
      }
      return report;
    },
  };
}
