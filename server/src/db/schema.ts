import type { Generated } from 'kysely';
import type { AlertTables } from '../alerts/tables';
import type { AssignmentColumns } from '../assignment/tables';
import type { CostTables } from '../cost/tables';
import type { DetectionTables } from '../incidents/detect/tables';
import type { TestRunTables } from '../test-runs/tables';
import type { TeamTables } from '../auth/tables';
import type { TraceTables } from '../traces/tables';
import type { SessionPageTables } from '../sessions/tables';
import type { VitalRollupTables } from '../vitals/rollup/tables';

/**
 * Table types for Kysely. Times are Unix epoch milliseconds (`*_ms`, integers that fit a JS number) for filtering and
 * ordering; OTLP nanosecond timestamps are kept verbatim as decimal strings (`*_ns`) so nothing is rounded.
 * JSON columns are text in both dialects: they are written and read whole, never queried into.
 */
export interface Database
  extends
    DetectionTables,
    CostTables,
    TestRunTables,
    TeamTables,
    TraceTables,
    SessionPageTables,
    AlertTables,
    VitalRollupTables {
  tenants: {
    id: string;
    name: string;
    created_ms: number;
    /** The organisation's single sign-on policy as JSON (organisation/policy.ts); null: the SVC_OIDC_* settings'. */
    sso_policy: string | null;
  };
  projects: { id: string; tenant_id: string; name: string; created_ms: number };
  apps: { id: string; project_id: string; name: string; created_ms: number };
  app_aliases: { project_id: string; app_id: string; alias: string; created_ms: number };
  api_keys: {
    id: string;
    project_id: string;
    scope: KeyScope;
    name: string;
    /** First characters of the key, shown in listings so a user can tell keys apart. */
    display_prefix: string;
    /** SHA-256 of the whole key, hex. Keys are 192 random bits, so a fast hash is safe (as for GitHub tokens). */
    hash: string;
    created_ms: number;
    expires_ms: number | null;
    revoked_ms: number | null;
    /** The key itself, for ingest keys only (public: every page that sends telemetry carries it); null otherwise. */
    key_text: string | null;
    /** The person who made the key; null for keys made by the CLI or on first start. */
    created_by: string | null;
    last_used_ms: number | null;
  };
  spans: {
    id: Generated<number>;
    project_id: string;
    app_id: string;
    trace_id: string;
    /** {@link traceKey} of trace_id: what the trace index holds. */
    trace_key: number;
    span_id: string;
    parent_span_id: string | null;
    name: string;
    kind: number;
    start_ns: string;
    end_ns: string;
    time_ms: number;
    duration_ms: number;
    status_code: number;
    status_message: string | null;
    session_id: string | null;
    attributes: string;
    events: string;
    links: string;
    resource: string;
    scope: string;
    received_ms: number;
  };
  logs: {
    id: Generated<number>;
    project_id: string;
    app_id: string;
    time_ns: string;
    observed_ns: string;
    time_ms: number;
    severity_number: number;
    severity_text: string | null;
    body: string;
    event_name: string | null;
    trace_id: string | null;
    trace_key: number | null;
    span_id: string | null;
    session_id: string | null;
    /** `log.record.uid` when the producer set one (the SDK does): a retried record with the same uid is not stored again. */
    record_uid: string | null;
    attributes: string;
    resource: string;
    scope: string;
    received_ms: number;
  };
  metric_points: {
    id: Generated<number>;
    project_id: string;
    app_id: string;
    name: string;
    description: string | null;
    unit: string | null;
    type: MetricType;
    time_ns: string;
    start_ns: string | null;
    time_ms: number;
    value: number | null;
    data: string;
    session_id: string | null;
    /** The point's `svc.point.uid` when the producer set one (the SDK does): a point sent again is not stored again. */
    point_uid: string | null;
    /** Its `url.path` attribute (the page of a Web Vitals point) and its resource's environment (otlp/environment.ts),
     * kept as columns so that the Web Vitals page and alert rules filter and group without parsing JSON per point. */
    route: string | null;
    env: string | null;
    attributes: string;
    resource: string;
    scope: string;
    received_ms: number;
  };
  replay_chunks: {
    id: Generated<number>;
    project_id: string;
    app_id: string;
    session_id: string;
    replay_id: string;
    seq: number;
    time_ms: number;
    end_ms: number;
    event_count: number;
    encoding: 'gzip' | 'json';
    /** The payload; empty when it lives in object storage under `object_key` (migration 0030). */
    data: Uint8Array;
    object_key: string | null;
    /** Size of the payload as stored; null for chunks stored before 0030 (then `length(data)`). */
    stored_bytes: number | null;
    received_ms: number;
  };
  recipes: {
    id: Generated<number>;
    project_id: string;
    app_id: string;
    session_id: string;
    replay_id: string;
    time_ms: number;
    method: string;
    url: string;
    status: number;
    duration_ms: number;
    trace_id: string | null;
    trace_key: number | null;
    step: string;
    received_ms: number;
  };
  sessions: {
    project_id: string;
    session_id: string;
    app_id: string;
    first_ms: number;
    last_ms: number;
    span_count: number;
    log_count: number;
    metric_count: number;
    replay_chunk_count: number;
    recipe_count: number;
    last_received_ms: number;
    /** The latest user the records named (`user.id`, and `user.email`/`user.name` when sent), and that record's time. */
    user_id: string | null;
    user_email: string | null;
    user_name: string | null;
    user_ms: number | null;
    /** JSON object of the latest `session.attributes.*` the records carried, and that record's time. */
    attributes: string | null;
    attributes_ms: number | null;
    /** `svc.replay.mode` and `svc.sample_rate` of the session's resource. */
    replay_mode: string | null;
    sample_rate: number | null;
    /** last_ms - first_ms, kept by the upsert so the listing can sort by it from an index. */
    duration_ms: number;
    /** Error log records stored (severity ERROR and above, or with `exception.type`). */
    error_count: number;
    /** `deployment.environment` and `service.version` (the release) of the latest batch that named them. */
    env: string | null;
    release: string | null;
    /** From `user_agent.original` (sessions/user-agent.ts): browser family, its major version, system, device kind. */
    browser: string | null;
    browser_version: string | null;
    os: string | null;
    device: string | null;
    /** JSON array of the distinct page paths seen, in the order first seen, at most 50; page_count is its length. */
    urls: string | null;
    page_count: number;
    /** The path of the earliest page record, and that record's time. */
    entry_url: string | null;
    entry_ms: number | null;
    /** The Playwright test the session was recorded in (`test.run.id`, `test.id`, `test.retry`, `test.title`, `test.file`). */
    test_run_id: string | null;
    test_id: string | null;
    test_retry: number | null;
    test_title: string | null;
    test_file: string | null;
  };
  incidents: AssignmentColumns & {
    id: string;
    project_id: string;
    title: string;
    severity: string;
    status: string;
    env: string;
    /** JSON array of service names. */
    services: string;
    root_cause_summary: string;
    source: string;
    fingerprint: string | null;
    open_key: string | null;
    /** JSON IncidentEvidence. */
    evidence: string | null;
    cost_impact: string | null;
    detected_ms: number;
    escalated_ms: number | null;
    acknowledged_ms: number | null;
    acknowledged_by: string | null;
    resolved_ms: number | null;
    resolved_by: string | null;
    updated_ms: number;
  };
  notification_channels: {
    id: string;
    project_id: string;
    type: string;
    name: string;
    /** JSON, without secrets. */
    config: string;
    /** Secrets, sealed (secrets/secret-box.ts). */
    secrets: string;
    created_ms: number;
  };
  notification_rules: {
    id: string;
    project_id: string;
    /** Evaluation order. */
    position: number;
    name: string;
    conditions: string;
    channels: string;
    delay_seconds: number;
    created_ms: number;
  };
  integrations: { project_id: string; kind: string; config: string; secrets: string; updated_ms: number };
  notification_threads: { channel_id: string; incident_id: string; ref: string };
  deliveries: {
    id: string;
    project_id: string;
    channel_id: string;
    channel_type: string;
    incident_id: string | null;
    event: string;
    trigger: string;
    rule_id: string | null;
    dedupe_key: string;
    state: string;
    /** Attempts made so far. */
    attempt: number;
    /** When the next attempt is due; null once the delivery is final. */
    next_attempt_ms: number | null;
    lease_owner: string | null;
    lease_until_ms: number | null;
    /** JSON IncidentNotice, fixed at the first attempt so that every retry sends the same message. */
    notice: string | null;
    last_status: number | null;
    last_response: string | null;
    error_class: string | null;
    error_message: string | null;
    latency_ms: number | null;
    provider_ref: string | null;
    created_ms: number;
    updated_ms: number;
    completed_ms: number | null;
  };
  delivery_attempts: {
    delivery_id: string;
    attempt: number;
    started_ms: number;
    latency_ms: number;
    outcome: string;
    status: number | null;
    response: string | null;
    error_class: string | null;
    error_message: string | null;
  };
  /** Source maps per project (sourcemaps/store.ts): keyed by debug ID, or by release and URL for maps without one. */
  sourcemaps: {
    id: string;
    project_id: string;
    debug_id: string | null;
    release: string | null;
    /** `~/assets/x.js` (any origin) or a full URL; null only when the map has a debug ID and no URL was given. */
    url: string | null;
    /** The map's JSON without `sourcesContent` (index maps flattened), gzip-compressed. */
    mappings_gzip: Uint8Array;
    /** Size of the map's JSON text as uploaded, bytes. */
    bytes: number;
    created_ms: number;
  };
  /** The `sourcesContent` entries of a stored map, one row per source that has content. */
  sourcemap_sources: { map_id: string; idx: number; content_gzip: Uint8Array };
}

/** `admin` keys are tenant-wide (project management); their `project_id` is only the project they were made in. */
export type KeyScope = 'ingest' | 'control' | 'read' | 'admin';
export type MetricType = 'gauge' | 'sum' | 'histogram' | 'exponential_histogram' | 'summary';
/** The telemetry tables the ingest path writes and the query API and retention job read. */
export type TelemetryTable = 'spans' | 'logs' | 'metric_points' | 'replay_chunks' | 'recipes';
export const TELEMETRY_TABLES: readonly TelemetryTable[] = [
  'spans',
  'logs',
  'metric_points',
  'replay_chunks',
  'recipes',
];
