import { isIssueNotice, type Notice } from '../kinds/types';
import type { DeliveryRow } from './store';

/** The notice a delivery was written with (test and issue deliveries) or saved at its first attempt. */
export const storedNotice = (row: DeliveryRow): Notice | undefined =>
  row.notice === null ? undefined : (JSON.parse(row.notice) as Notice);

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The issue an issue delivery is about, from its notice (written with the delivery); null for incident deliveries. */
function issueIdOf(row: DeliveryRow): string | null {
  if (row.trigger !== 'issue') return null;
  const notice = storedNotice(row);
  return notice !== undefined && isIssueNotice(notice) ? notice.payload.issue_id : null;
}

/** A delivery as the API returns it (SPEC 2.7). */
export function deliveryJson(row: DeliveryRow) {
  return {
    id: row.id,
    channel_id: row.channel_id,
    channel_type: row.channel_type,
    incident_id: row.incident_id,
    issue_id: issueIdOf(row),
    event: row.event,
    trigger: row.trigger,
    rule_id: row.rule_id,
    state: row.state,
    attempt: row.attempt,
    next_attempt_at: isoOrNull(row.next_attempt_ms),
    latency_ms: row.latency_ms === null ? null : Math.round(row.latency_ms),
    response:
      row.last_status === null && row.last_response === null
        ? null
        : { status: row.last_status, body: row.last_response },
    error_class: row.error_class,
    error_message: row.error_message,
    provider_ref: row.provider_ref,
    created_at: new Date(row.created_ms).toISOString(),
    updated_at: new Date(row.updated_ms).toISOString(),
    completed_at: isoOrNull(row.completed_ms),
  };
}
