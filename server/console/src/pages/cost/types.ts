/** What the cost routes answer (server/src/cost/routes/schemas.ts), as far as the page reads it. */

export interface ChargeType {
  charge_type: string;
  charge_category: string;
  cost: number;
  billed_cost: number;
}

export interface Charges {
  cost: number;
  billed_cost: number;
  by_type: ChargeType[];
}

export interface ProviderFreshness {
  id: string;
  provider: string;
  name: string | null;
  status: 'no_data' | 'fresh' | 'stale';
  last_success_at: string | null;
  last_error: { message: string; at: string | null } | null;
  consecutive_failures: number;
  next_sync_at: string | null;
}

export interface DataFreshness {
  status: 'no_data' | 'fresh' | 'stale';
  message: string;
  stale_after_hours: number;
  providers: ProviderFreshness[];
}

export interface Summary {
  period: string;
  currency: string | null;
  period_total: number;
  month_to_date: number;
  billed_total: number;
  usage_total: number;
  attributed: { cost: number; share: number };
  unattributed: { cost: number; share: number };
  charges: Charges;
  data: DataFreshness;
}

export interface ByService {
  period: string;
  currency: string | null;
  total: number;
  usage_total: number;
  services: Array<{ service: string; cost: number; billed_cost: number; share: number }>;
}

export interface AnomalyFlag {
  day: string;
  cost: number;
  baseline: number;
  excess: number;
  excess_pct: number | null;
  service?: string;
}

export interface Estimate {
  period: string;
  range: { start: string; end: string };
  currency: string | null;
  to_date: number;
  projected: number;
  daily: Array<{ day: string; cost: number }>;
  anomalies: { total: AnomalyFlag[]; by_service: Array<AnomalyFlag & { service: string }> };
}

export interface Recommendation {
  kind: 'idle_resource' | 'overprovisioned_service' | 'reserved_instance' | string;
  target: { type: 'resource'; resource_id: string; resource_name: string | null; service: string | null } | { type: 'service'; service: string };
  evidence: Record<string, unknown>;
  estimated_monthly_saving: number;
  currency: string;
}

export interface Recommendations {
  window: { start: string; end: string };
  currency: string | null;
  note: string;
  recommendations: Recommendation[];
  total_estimated_monthly_saving: number;
}

export interface Provider {
  id: string;
  provider: string;
  name: string | null;
  created_at: string;
  sync: { state: string; next_run_at: string | null; last_success_at: string | null; last_run: { status: string; error: string | null } | null };
}
