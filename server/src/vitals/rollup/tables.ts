/**
 * Tables of migration 0037-vital-rollups (a type, not an interface: the Database interface extends it); docs/api.md
 * "Web Vitals" and docs/scale.md say what they are for.
 */
export type VitalRollupTables = {
  /** One row per period (UTC hour or day), app, environment, route pattern and vital: what its points add up to. */
  vital_rollups: {
    project_id: string;
    period: RollupPeriod;
    /** The period's start, epoch milliseconds. */
    start_ms: number;
    app_id: string;
    env: string;
    /** The route pattern of the points' `url.path` (shared/route-pattern.ts), or `(unknown)`. */
    route: string;
    /** LCP, INP, CLS, FCP or TTFB. */
    vital: string;
    samples: number;
    good: number;
    needs_improvement: number;
    poor: number;
    /** JSON of rollup/histogram.ts's EncodedHistogram. */
    histogram: string;
  };
  /** Per project, how far the rollup job got (vitals/rollup/job.ts). */
  vital_rollup_marks: {
    project_id: string;
    /** Every hour before this is rolled up. */
    hours_ms: number;
    /** Every day before this is rolled up (from the hours). */
    days_ms: number;
    /** Points received from this on are looked at for hours rolled up before they came. */
    checked_ms: number;
  };
  /** Periods rolled up before some of their points came: rolled up again by the next run. */
  vital_rollup_stale: {
    project_id: string;
    period: RollupPeriod;
    start_ms: number;
    /** When it was found stale: a run that read the points before then leaves it stale. */
    marked_ms: number;
  };
};

export type RollupPeriod = 'hour' | 'day';
