/** What the notification routes answer (server/src/notify/schemas.ts). */

export const CHANNEL_TYPES = ['webhook', 'chat', 'teams', 'email', 'sms', 'voice'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface Channel {
  id: string;
  type: ChannelType;
  name: string;
  config: Record<string, unknown>;
  /** Secret config fields holding a value (`secret`, `smtp.password`), never their values. */
  secrets_set: string[];
  created_at: string;
  /** Webhook creation only, when the server made the signing secret: shown once. */
  signing_secret?: string;
}

export interface RuleConditions {
  severity?: string[];
  env?: string[];
  services?: string[];
}

export interface Rule {
  id: string;
  name: string;
  position: number;
  conditions: RuleConditions;
  channels: string[];
  delay_seconds: number;
  created_at: string;
}

export const DELIVERY_STATES = ['scheduled', 'sent', 'delivered', 'failed', 'retrying', 'cancelled'] as const;

export interface Delivery {
  id: string;
  channel_id: string;
  channel_type: string;
  incident_id: string | null;
  issue_id: string | null;
  event: string;
  trigger: string;
  rule_id: string | null;
  state: string;
  attempt: number;
  next_attempt_at: string | null;
  latency_ms: number | null;
  response: { status: number | null; body: string | null } | null;
  error_class: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
}

/** Incident severities and the one issue events carry (`warning`), as rules may name them. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'warning'] as const;
