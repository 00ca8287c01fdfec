/**
 * Table of migration 0035-alert-rules (a type, not an interface: the Database interface extends it). The rule's
 * definition is written by the API (alerts/store.ts); the state columns by the evaluator (alerts/evaluate/).
 */
export type AlertTables = {
  alert_rules: {
    /** `ar_` and 20 hex digits. */
    id: string;
    project_id: string;
    name: string;
    signal: string;
    /** JSON {@link AlertQuery} (alerts/schemas.ts). */
    query: string;
    /** JSON condition: a threshold or a change. */
    condition: string;
    /** JSON `{ value }` of a threshold rule that resolves at another value; null: when the condition no longer holds. */
    recovery: string | null;
    window_seconds: number;
    for_seconds: number;
    severity: string;
    no_data: string;
    /** 1 or 0. */
    enabled: number;
    created_ms: number;
    updated_ms: number;
    /** `ok`, `pending`, `firing` or `no_data`, and since when. */
    state: string;
    state_since_ms: number;
    /** When the condition began to hold, while it has held for less than `for_seconds`. */
    pending_since_ms: number | null;
    last_value: number | null;
    last_evaluated_ms: number | null;
    /** The incident the rule opened and has not yet resolved. */
    incident_id: string | null;
    /** When the rule is next due; 0 for a rule never evaluated. */
    next_eval_ms: number;
    lease_owner: string | null;
    lease_until_ms: number | null;
  };
};
