import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { assignmentColumns, type AssignmentChange } from '../assignment/tables';
import type { AssigneeFilter } from '../assignment/assignee';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { afterPosition, type Position, type SortOrder } from '../shared/keyset';
import {
  byUrgency,
  incidentEvent,
  incidentView,
  newIncidentRow,
  openKey,
  type IncidentEvent,
  type IncidentReadRow,
  type IncidentRow,
} from './rows';
import type { IncidentSort } from './schemas';
import {
  SEVERITIES,
  type CostImpactOf,
  type IncidentCommands,
  type IncidentEventKind,
  type IncidentOpening,
  type IncidentView,
  type Severity,
} from './types';

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
  /** Sets the assignee (no notification event); the incident as it is then, undefined when there is none. */
  assign(projectId: string, id: string, change: AssignmentChange): Promise<IncidentView | undefined>;
}

export interface IncidentFilter {
  status?: string;
  severity?: string;
  env?: string;
  /** Incidents whose services include this one (ignoring case). */
  service?: string;
  /** Incidents assigned to one person, or to no one. */
  assignee?: AssigneeFilter;
  sort: IncidentSort;
  order: SortOrder;
  limit: number;
  after?: Position;
}

/** A severity's rank: the most urgent (first in SEVERITIES) highest, so that descending order puts it first. */
const severityRank = (severity: Severity) => SEVERITIES.length - SEVERITIES.indexOf(severity);

/**
 * The severity order's value as SQL text, literals only: the index on it (migration 0031) is used only by a query whose
 * expression is the same text (SQLite), and PostgreSQL would type parameters in a CASE as text.
 */
export const SEVERITY_RANK_SQL = `case severity ${SEVERITIES.map((s) => `when '${s}' then ${severityRank(s)}`).join(' ')} else 0 end`;

/** The value each order sorts by, in SQL (ties by id). */
const SORT_VALUE: Record<IncidentSort, RawBuilder<number>> = {
  detected: sql<number>`detected_ms`,
  updated: sql<number>`updated_ms`,
  severity: sql<number>`${sql.raw(SEVERITY_RANK_SQL)}`,
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

const newId = () => `inc_${randomBytes(10).toString('hex')}`;

/** A conditional move: applies `changes` when the incident is in one of `from`, and writes the event `kind`. */
interface Move {
  from: readonly string[];
  kind: IncidentEventKind;
  changes: (now: number) => Partial<IncidentRow>;
}

const MOVES = {
  escalate: {
    from: ['detected'],
    kind: 'incident.escalated',
    changes: (now) => ({ status: 'escalated', escalated_ms: now }),
  },
  acknowledge: (by: string): Move => ({
    from: ['detected', 'escalated'],
    kind: 'incident.acknowledged',
    changes: (now) => ({ status: 'acknowledged', acknowledged_ms: now, acknowledged_by: by }),
  }),
  resolve: (by: string): Move => ({
    from: ['detected', 'escalated', 'acknowledged'],
    kind: 'incident.resolved',
    changes: (now) => ({ status: 'resolved', resolved_ms: now, resolved_by: by, open_key: null }),
  }),
} satisfies { escalate: Move; acknowledge: (by: string) => Move; resolve: (by: string) => Move };

/**
 * Makes a move in one conditional UPDATE with its event's deliveries (deps.onEvent) in the same transaction: the
 * moved row, or undefined when the incident was not in a state the move starts from (nothing written).
 */
async function applyMove(deps: IncidentStoreDeps, projectId: string, id: string, move: Move) {
  const now = deps.clock.now();
  const moved = await deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('incidents')
      .set({ ...move.changes(now), updated_ms: now })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .where('status', 'in', move.from)
      .returningAll()
      .executeTakeFirst();
    if (row) await deps.onEvent(trx, incidentEvent(row, move.kind, now));
    return row;
  });
  if (moved) deps.afterEvent();
  return moved;
}

/**
 * Inserts a new incident with its `incident.created` deliveries, in one transaction; false when a detector's open
 * key is taken (another process, or an earlier run, opened the same burst first).
 */
async function insertIncident(deps: IncidentStoreDeps, row: IncidentRow): Promise<boolean> {
  const created = await deps.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('incidents')
      .values(row)
      .onConflict((oc) => oc.column('open_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) await deps.onEvent(trx, incidentEvent(row, 'incident.created', row.detected_ms));
    return inserted !== undefined;
  });
  if (created) deps.afterEvent();
  return created;
}

/** Incidents as read: each with its assignee's account (`users` joined, so ids are `incidents.id`). */
const incidentRows = (db: Kysely<Database>) =>
  db
    .selectFrom('incidents')
    .leftJoin('users as assignee', 'assignee.id', 'incidents.assignee_id')
    .selectAll('incidents')
    .select(['assignee.email as assignee_email', 'assignee.name as assignee_name']);

/** One incident of a project as read. */
const incidentRow = (db: Kysely<Database>, projectId: string, id: string) =>
  incidentRows(db).where('project_id', '=', projectId).where('incidents.id', '=', id).executeTakeFirst();

/** A page of the project's incidents in the filter's order. */
function listIncidentRows(db: Kysely<Database>, projectId: string, filter: IncidentFilter): Promise<IncidentReadRow[]> {
  let query = incidentRows(db).where('project_id', '=', projectId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.severity) query = query.where('severity', '=', filter.severity);
  if (filter.env) query = query.where('env', '=', filter.env);
  if (filter.service) {
    // `services` is a JSON array of strings: an element is its JSON text, quotes included, found literally. lower()
    // on both sides: PostgreSQL's LIKE is case-sensitive, SQLite's is not (for ASCII).
    const element = `%${JSON.stringify(filter.service.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`lower(services) like ${element} escape '\\'`);
  }
  const { assignee } = filter;
  if (assignee)
    query =
      'userId' in assignee
        ? query.where('incidents.assignee_id', '=', assignee.userId)
        : query.where('incidents.assignee_id', 'is', null);
  const value = SORT_VALUE[filter.sort];
  const id = sql.ref('incidents.id');
  if (filter.after)
    query = query.where(afterPosition({ order: filter.order, value: 'integer' }, value, id, filter.after));
  return query.orderBy(value, filter.order).orderBy('incidents.id', filter.order).limit(filter.limit).execute();
}

/**
 * Incidents in the database, and the moves between their states (docs/incidents.md):
 * detected → escalated → acknowledged → resolved, where escalated may be skipped and acknowledged may come before
 * escalated (an acknowledged incident is not escalated any more). Each move is conditional on the state it starts
 * from, in one UPDATE, so two processes (or a double click) cannot make it twice, and it writes its notifications in
 * the same transaction.
 */
export function createIncidentStore(deps: IncidentStoreDeps): IncidentStore {
  const { db, clock } = deps;
  const view = (row: IncidentReadRow) => incidentView(row, deps.dashboardUrl(row.project_id, row.id));
  /** The incident as read now; undefined when there is none. */
  const read = async (projectId: string, id: string) => {
    const row = await incidentRow(db, projectId, id);
    return row && view(row);
  };
  /** The moved incident, or as it is (with its cost impact) when the move did not apply. */
  const moveTo = async (projectId: string, id: string, move: Move) =>
    (await applyMove(deps, projectId, id, move)) ? read(projectId, id) : store.get(projectId, id);

  const store: IncidentStore = {
    async open(opening: IncidentOpening) {
      const row = newIncidentRow(opening, newId(), clock.now());
      if (await insertIncident(deps, row)) return { id: row.id, created: true };
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

    escalate: (projectId, id) => moveTo(projectId, id, MOVES.escalate),
    acknowledge: (projectId, id, by) => moveTo(projectId, id, MOVES.acknowledge(by)),
    resolve: (projectId, id, by) => moveTo(projectId, id, MOVES.resolve(by)),

    async listOpen(projectId) {
      const rows = await incidentRows(db)
        .where('project_id', '=', projectId)
        .where('status', '!=', 'resolved')
        .execute();
      return rows.sort(byUrgency).map(view);
    },

    async findOpen(projectId, fingerprint) {
      const row = await incidentRows(db).where('open_key', '=', openKey(projectId, fingerprint)).executeTakeFirst();
      return row && view(row);
    },

    async get(projectId, id) {
      const incident = await read(projectId, id);
      if (incident) incident.cost_impact = await deps.costImpact(projectId, incident);
      return incident;
    },

    list: async (projectId, filter) => (await listIncidentRows(db, projectId, filter)).map(view),

    async assign(projectId, id, change) {
      // An assignment is a change of the incident: the listing's `updated` order sees it.
      await db
        .updateTable('incidents')
        .set({ ...assignmentColumns(change), updated_ms: change.atMs })
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .execute();
      return read(projectId, id);
    },
  };
  return store;
}
