import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { afterPosition, type Position, type SortOrder } from '../shared/keyset';
import type { IncidentSort } from './schemas';
import {
  SEVERITIES,
  type CostImpactOf,
  type IncidentCommands,
  type IncidentEventKind,
  type IncidentEvidence,
  type IncidentOpening,
  type IncidentView,
  type Severity,
} from './types';

type IncidentRow = Selectable<Database['incidents']>;

/** An incident event, handed to the notification scheduler inside the transaction that made it. */
export interface IncidentEvent {
  projectId: string;
  incidentId: string;
  event: IncidentEventKind;
  atMs: number;
  severity: Severity;
  env: string;
  services: string[];
}

export interface IncidentStoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** The signed incident page link (incidents/links.ts). */
  dashboardUrl: (projectId: string, incidentId: string) => string;
  /** Estimated cost of an incident to its services, computed when it is read (it grows while the incident lasts). */
  costImpact: CostImpactOf;
  /** Writes the deliveries an event causes, in the event's transaction, so an event is never without them. */
  onEvent: (trx: Transaction<Database>, event: IncidentEvent) => Promise<void>;
  /** After commit: work may be due now. */
  afterEvent: () => void;
}

export interface IncidentStore extends IncidentCommands {
  get(projectId: string, id: string): Promise<IncidentView | undefined>;
  /** In `filter.sort` and `filter.order`, at most `filter.limit`, after `filter.after`. */
  list(projectId: string, filter: IncidentFilter): Promise<IncidentView[]>;
}

export interface IncidentFilter {
  status?: string;
  severity?: string;
  env?: string;
  /** Incidents whose services include this one (ignoring case). */
  service?: string;
  sort: IncidentSort;
  order: SortOrder;
  limit: number;
  after?: Position;
}

/** A severity's rank: the most urgent (first in SEVERITIES) highest, so that descending order puts it first. */
const severityRank = (severity: Severity) => SEVERITIES.length - SEVERITIES.indexOf(severity);

/** The value each order sorts by, in SQL (ties by id). */
const SORT_VALUE: Record<IncidentSort, RawBuilder<number>> = {
  detected: sql<number>`detected_ms`,
  updated: sql<number>`updated_ms`,
  // Ranks are literals: PostgreSQL would type parameters in a CASE as text.
  severity: sql<number>`case severity ${sql.join(
    SEVERITIES.map((s) => sql`when ${s} then ${sql.lit(severityRank(s))}`),
    sql` `,
  )} else 0 end`,
};

/** The same value of an incident as the API shows it: where the page after it starts. */
export function incidentPosition(sort: IncidentSort, incident: IncidentView): Position {
  const t = {
    detected: () => Date.parse(incident.detected_at),
    updated: () => Date.parse(incident.updated_at),
    severity: () => severityRank(incident.severity),
  }[sort]();
  return { t, k: incident.id };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const newId = () => `inc_${randomBytes(10).toString('hex')}`;

/**
 * Incidents in the database, and the moves between their states (docs/incidents.md):
 * detected → escalated → acknowledged → resolved, where escalated may be skipped and acknowledged may come before
 * escalated (an acknowledged incident is not escalated any more). Each move is conditional on the state it starts
 * from, in one UPDATE, so two processes (or a double click) cannot make it twice, and it writes its notifications in
 * the same transaction.
 */
export function createIncidentStore(deps: IncidentStoreDeps): IncidentStore {
  const { db, clock } = deps;

  const view = (row: IncidentRow): IncidentView => ({
    id: row.id,
    title: row.title,
    severity: row.severity as Severity,
    status: row.status as IncidentView['status'],
    env: row.env,
    services: JSON.parse(row.services) as string[],
    root_cause_summary: row.root_cause_summary,
    dashboard_url: deps.dashboardUrl(row.project_id, row.id),
    source: row.source as IncidentView['source'],
    fingerprint: row.fingerprint,
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as IncidentEvidence),
    cost_impact: null,
    detected_at: iso(row.detected_ms)!,
    escalated_at: iso(row.escalated_ms),
    acknowledged_at: iso(row.acknowledged_ms),
    acknowledged_by: row.acknowledged_by,
    resolved_at: iso(row.resolved_ms),
    resolved_by: row.resolved_by,
    updated_at: iso(row.updated_ms)!,
  });

  const event = (row: IncidentRow, kind: IncidentEventKind, atMs: number): IncidentEvent => ({
    projectId: row.project_id,
    incidentId: row.id,
    event: kind,
    atMs,
    severity: row.severity as Severity,
    env: row.env,
    services: JSON.parse(row.services) as string[],
  });

  /** A conditional move: applies `changes` when the incident is in one of `from`, and emits `kind`. */
  const move = async (
    projectId: string,
    id: string,
    from: readonly string[],
    kind: IncidentEventKind,
    changes: (now: number) => Partial<IncidentRow>,
  ): Promise<IncidentView | undefined> => {
    const now = clock.now();
    const moved = await db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('incidents')
        .set({ ...changes(now), updated_ms: now })
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .where('status', 'in', from)
        .returningAll()
        .executeTakeFirst();
      if (row) await deps.onEvent(trx, event(row, kind, now));
      return row;
    });
    if (moved) {
      deps.afterEvent();
      return view(moved);
    }
    return store.get(projectId, id);
  };

  const store: IncidentStore = {
    async open(opening: IncidentOpening) {
      const now = clock.now();
      const openKey = opening.fingerprint === null ? null : `${opening.projectId}:${opening.fingerprint}`;
      const row: IncidentRow = {
        id: newId(),
        project_id: opening.projectId,
        title: opening.title,
        severity: opening.severity,
        status: 'detected',
        env: opening.env,
        services: JSON.stringify(opening.services),
        root_cause_summary: opening.rootCauseSummary,
        source: opening.fingerprint === null ? 'api' : 'detector',
        fingerprint: opening.fingerprint,
        open_key: openKey,
        evidence: opening.evidence === null ? null : JSON.stringify(opening.evidence),
        cost_impact: null,
        detected_ms: now,
        escalated_ms: null,
        acknowledged_ms: null,
        acknowledged_by: null,
        resolved_ms: null,
        resolved_by: null,
        updated_ms: now,
      };
      const created = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('incidents')
          .values(row)
          .onConflict((oc) => oc.column('open_key').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (inserted) await deps.onEvent(trx, event(row, 'incident.created', now));
        return inserted !== undefined;
      });
      if (created) {
        deps.afterEvent();
        return { id: row.id, created: true };
      }
      // Another process (or an earlier run) opened it first: the open incident of this key is the one.
      const existing = await store.findOpen(opening.projectId, opening.fingerprint!);
      return { id: existing!.id, created: false };
    },

    async update(projectId, id, evidence, rootCauseSummary) {
      await db
        .updateTable('incidents')
        .set({ evidence: JSON.stringify(evidence), root_cause_summary: rootCauseSummary, updated_ms: clock.now() })
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .where('status', '!=', 'resolved')
        .execute();
    },

    escalate: (projectId, id) =>
      move(projectId, id, ['detected'], 'incident.escalated', (now) => ({ status: 'escalated', escalated_ms: now })),
    acknowledge: (projectId, id, by) =>
      move(projectId, id, ['detected', 'escalated'], 'incident.acknowledged', (now) => ({
        status: 'acknowledged',
        acknowledged_ms: now,
        acknowledged_by: by,
      })),
    resolve: (projectId, id, by) =>
      move(projectId, id, ['detected', 'escalated', 'acknowledged'], 'incident.resolved', (now) => ({
        status: 'resolved',
        resolved_ms: now,
        resolved_by: by,
        open_key: null,
      })),

    async listOpen(projectId) {
      const rows = await db
        .selectFrom('incidents')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('status', '!=', 'resolved')
        .execute();
      const rank = (s: string) => SEVERITIES.indexOf(s as Severity);
      return rows.sort((a, b) => rank(a.severity) - rank(b.severity) || b.detected_ms - a.detected_ms).map(view);
    },

    async findOpen(projectId, fingerprint) {
      const row = await db
        .selectFrom('incidents')
        .selectAll()
        .where('open_key', '=', `${projectId}:${fingerprint}`)
        .executeTakeFirst();
      return row && view(row);
    },

    async get(projectId, id) {
      const row = await db
        .selectFrom('incidents')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      const incident = view(row);
      incident.cost_impact = await deps.costImpact(projectId, incident);
      return incident;
    },

    async list(projectId, filter) {
      let query = db.selectFrom('incidents').selectAll().where('project_id', '=', projectId);
      if (filter.status) query = query.where('status', '=', filter.status);
      if (filter.severity) query = query.where('severity', '=', filter.severity);
      if (filter.env) query = query.where('env', '=', filter.env);
      if (filter.service) {
        // `services` is a JSON array of strings: an element is its JSON text, quotes included, found literally. lower()
        // on both sides: PostgreSQL's LIKE is case-sensitive, SQLite's is not (for ASCII).
        const element = `%${JSON.stringify(filter.service.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where(sql<boolean>`lower(services) like ${element} escape '\\'`);
      }
      const value = SORT_VALUE[filter.sort];
      if (filter.after)
        query = query.where(
          afterPosition({ order: filter.order, value: 'integer' }, value, sql.ref('id'), filter.after),
        );
      const rows = await query.orderBy(value, filter.order).orderBy('id', filter.order).limit(filter.limit).execute();
      return rows.map(view);
    },
  };
  return store;
}
