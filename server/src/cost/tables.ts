/** Table types of cost tracking (migrations 0004-cost, 0010-cost-charge-type), merged into db/schema.ts's `Database`. Times are epoch ms. */
export interface CostTables {
  /** One cloud billing connection (SPEC 2.1). */
  cost_providers: {
    id: string;
    project_id: string;
    provider: string;
    /** A label to tell connections apart (e.g. the account), or null. */
    name: string | null;
    /** JSON: what the provider kind makes public. */
    config: string;
    /** Sealed (secrets/secret-box.ts): the rest of the config, credentials and role details. */
    secrets: string;
    created_ms: number;
  };
  /**
   * The durable daily sync job of a connection, and what its last run did. A process takes a due job with a lease, so
   * a killed process loses nothing (the lease runs out and the job runs again) and two processes never run one job.
   */
  cost_syncs: {
    provider_id: string;
    project_id: string;
    next_run_ms: number;
    lease_owner: string | null;
    lease_until_ms: number | null;
    /** Failed runs in a row: sets the retry delay; 0 after a success. */
    failures: number;
    last_started_ms: number | null;
    last_finished_ms: number | null;
    /** `succeeded` or `failed`; null before the first run. */
    last_status: string | null;
    /** Line items read by the last run. */
    last_rows: number | null;
    /** JSON array of the billing periods the last run read. */
    last_periods: string | null;
    last_error: string | null;
    last_success_ms: number | null;
  };
  /** A billed thing (or, for charges without a resource, a service in a region and account) and its attribution. */
  cost_resources: {
    provider_id: string;
    resource_key: string;
    project_id: string;
    resource_id: string | null;
    resource_name: string | null;
    service_name: string;
    service_category: string | null;
    region: string | null;
    account_id: string | null;
    /** JSON object of tags, as last billed. */
    tags: string;
    /** Attributed by the project's mapping rules; null is `Unattributed`. */
    service: string | null;
    env: string | null;
    updated_ms: number;
  };
  /** Cost per UTC day, resource and kind of charge: what line items add up to (a sync replaces a period whole). */
  cost_daily: {
    provider_id: string;
    project_id: string;
    billing_period: string;
    /** `YYYY-MM-DD`, UTC. */
    day: string;
    resource_key: string;
    charge_category: string;
    /**
     * The provider's name of the kind of charge (CostLineItem.chargeType), by which reports break non-usage charges
     * down (migration 0010); `` in rows stored before it, which reports show under their charge category.
     */
    charge_type: string;
    /** FOCUS PricingCategory, `` when unknown. */
    pricing_category: string;
    currency: string;
    billed_cost: number;
    effective_cost: number;
    line_items: number;
  };
  /** The project's ordered attribution rules (SPEC 2.2). */
  cost_mappings: { project_id: string; rules: string; updated_ms: number };
}
