import type { Clock } from '../../clock';
import type { IncidentEventKind, IncidentStatus, Severity } from '../../incidents/types';
import type { GuardedHttp } from '../http/guarded-http';

/** Channel kinds, as `type` is written in `POST /control-plane/notifications/channels` (SPEC 2.4: `chat` is given). */
export const CHANNEL_TYPES = ['chat', 'teams', 'sms', 'voice', 'email', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** SPEC 2.6: exactly what the webhook kind posts for an incident event, and what every other kind renders from. */
export interface IncidentPayload {
  event: IncidentEventKind;
  incident_id: string;
  severity: Severity;
  title: string;
  services: string[];
  env: string;
  root_cause_summary: string;
  dashboard_url: string;
}

/** What a kind renders for an incident: the SPEC 2.6 payload plus what richer channels show and link to. */
export interface IncidentNotice {
  payload: IncidentPayload;
  status: IncidentStatus;
  /** ISO 8601. */
  detected_at: string;
  /**
   * Links that acknowledge or resolve the incident without a login, signed and expiring (docs/notifications.md):
   * Teams `Action.OpenUrl`, the SMS and e-mail links, the voice keypress callback.
   */
  acknowledge_url: string;
  resolve_url: string;
  /** A synthetic incident from `POST /control-plane/notifications/{channel_id}/test`. */
  test: boolean;
  /** Who acknowledged or resolved the incident, for those events (`chat:alice`, `link`, `voice`); null otherwise. */
  actor: string | null;
  /**
   * The incident page's root-cause analysis section (docs/ai-fixes.md), when the incident's issue was analysed; not in
   * the webhook payload, which keeps SPEC 2.6's fields.
   */
  analysis_url?: string | null;
}

/** Events about an issue (a group of errors, docs/notifications.md): a resolved issue that occurred again. */
export type IssueEventKind = 'issue.regressed';

/** The severity an issue event is matched and shown with; rules may name it in `conditions.severity`. One of SEVERITIES. */
export const ISSUE_SEVERITY = 'warning' satisfies Severity;

/** SPEC 2.6's fields an event without an incident shares with an incident's payload. */
type EventPayloadFields = Pick<
  IncidentPayload,
  'title' | 'services' | 'env' | 'root_cause_summary' | 'dashboard_url'
> & {
  severity: typeof ISSUE_SEVERITY;
};

/** What a kind renders for an event without an incident: nothing to acknowledge or resolve from a message. */
interface EventNotice<P, S extends string> {
  payload: P;
  status: S;
  /** When the event happened, ISO 8601. */
  detected_at: string;
  test: false;
}

/** The webhook payload of an issue event: SPEC 2.6's fields, with `issue_id` where an incident has `incident_id`. */
export type IssuePayload = EventPayloadFields & { event: IssueEventKind; issue_id: string };

/** What a kind renders for an issue event: the link opens the issue. */
export type IssueNotice = EventNotice<IssuePayload, 'regressed'>;

/** Events about a project's ingest, with neither incident nor issue: a spike being throttled (docs/governance.md). */
export type ProjectEventKind = 'ingest.spike';

/** The webhook payload of a project event: SPEC 2.6's fields, with `project_id` where an incident has `incident_id`. */
export type ProjectPayload = EventPayloadFields & { event: ProjectEventKind; project_id: string };

/** What a kind renders for a project event: the link opens the project's usage page. */
export type ProjectNotice = EventNotice<ProjectPayload, 'throttled'>;

/** What the outbox hands a kind to send. */
export type Notice = IncidentNotice | IssueNotice | ProjectNotice;
export type NoticeEventKind = Notice['payload']['event'];
export type NoticeSeverity = Notice['payload']['severity'];
export type NoticeStatus = Notice['status'];

export const isIssueNotice = (notice: Notice): notice is IssueNotice => 'issue_id' in notice.payload;
export const isIncidentNotice = (notice: Notice): notice is IncidentNotice => 'incident_id' in notice.payload;

/** How an attempt ended, as the delivery log records it (SPEC 2.7 states, plus `retry` which becomes `retrying`). */
export type SendOutcome =
  | {
      /** `delivered`: the receiver confirmed (2xx with the message taken). `sent`: accepted, delivery not confirmed (Teams 202, Twilio `queued`, SMTP 250). */
      state: 'delivered' | 'sent';
      status?: number;
      body?: string;
      /** A provider id worth keeping (chat `ts`, Twilio SID, SMTP message id). */
      providerRef?: string;
    }
  | {
      /** Worth another attempt (5xx, 429, timeouts of kinds that retry, network errors). */
      state: 'retry';
      status?: number;
      body?: string;
      /** Short stable word for the log: `http_5xx`, `http_429`, `timeout`, `connect`, `dns`, `tls`, `smtp_4xx`, … */
      errorClass: string;
      message: string;
      /** The receiver asked for this much time (`Retry-After`): the next attempt waits at least this long. */
      retryAfterMs?: number;
    }
  | {
      /** Final: another attempt would not help (4xx, `ssrf_blocked`, invalid recipient) or the policy says so. */
      state: 'failed';
      status?: number;
      body?: string;
      errorClass: string;
      message: string;
    };

/**
 * Per (channel, incident) memory of a kind between deliveries, e.g. the chat thread a first message started; per
 * delivery for a delivery without an incident (a test, an issue event).
 */
export interface ThreadRef {
  get(): Promise<string | undefined>;
  set(ref: string): Promise<void>;
}

export interface SendContext<C, S> {
  config: C;
  secrets: S;
  notice: Notice;
  /** Stable across the retries of one delivery: the Standard Webhooks `webhook-id`, an idempotency key elsewhere. */
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The only way out to the network: refuses private targets at connect time (unless allowed), times out. */
  http: GuardedHttp;
  clock: Clock;
  thread: ThreadRef;
  integrations: Integrations;
}

/** Project-wide accounts a kind may need (SPEC 2.4: "connected in Settings > Integrations"). */
export type IntegrationKind = 'chat_app' | 'telephony';

export interface Integration {
  /** What the API shows. */
  config: Record<string, unknown>;
  /** Stored encrypted, never returned. */
  secrets: Record<string, unknown>;
}

export interface Integrations {
  get(kind: IntegrationKind): Promise<Integration | undefined>;
}

/** A kind's retry policy: waits before attempts 2, 3, … (so `delaysMs.length` retries), and each attempt's timeout. */
export interface RetryPolicy {
  readonly delaysMs: readonly number[];
  readonly timeoutMs: number;
  /**
   * Least time between two attempts to one channel (a provider's rate limit, e.g. chat's one message per second per
   * channel); attempts beyond it wait their turn in the worker instead of drawing a 429.
   */
  readonly minIntervalMs?: number;
}

/**
 * One channel kind: validation of its `config`, what the API shows of it, how it sends, and its retry policy. `C` is
 * the stored (non-secret) config, `S` the secrets, stored encrypted and never returned.
 */
export interface ChannelKind<C = unknown, S = unknown> {
  readonly type: ChannelType;
  /**
   * Validates the `config` of a create request and splits out the secrets. Throws an `invalid` DomainError (shared/domain-errors.ts) with a
   * message naming the field as `config.<name>` and `details: { field: 'config.<name>' }`.
   */
  parse(config: unknown, context: ParseContext): Promise<{ config: C; secrets: S }>;
  /** The config as the API returns it: no secret, not even partly. */
  publicConfig(config: C): Record<string, unknown>;
  send(context: SendContext<C, S>): Promise<SendOutcome>;
  readonly retry: RetryPolicy;
  /**
   * The hosts the channel connects to, each with the config field that named it: a private one (loopback, RFC 1918, …)
   * is refused when the channel is saved unless the server allows private targets, rather than at its first send.
   * Left out by kinds that reach only their provider's API.
   */
  targets?(config: C, secrets: S): ChannelTarget[];
}

export interface ChannelTarget {
  /** e.g. `config.url` */
  field: string;
  /** A URL's hostname or a mail server's host. */
  host: string;
}

export interface ParseContext {
  /** The project's integrations, for kinds that need one (telephony) or offer a richer mode with one (chat). */
  integrations: Integrations;
}
