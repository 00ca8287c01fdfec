import type { IncidentNotice, IncidentPayload } from '../../server/src/notify/kinds/types';

/** What a notice builder may change: any field, and any field of the payload. */
export type NoticeChanges = Partial<Omit<IncidentNotice, 'payload'>> & { payload?: Partial<IncidentPayload> };

/**
 * An incident notice as the outbox hands it to a channel kind, for the kinds' tests: a new critical production
 * incident `inc_42` with signed-looking links. Each test changes what its assertions are about.
 */
export function incidentNotice(changes: NoticeChanges = {}): IncidentNotice {
  const { payload, ...rest } = changes;
  return {
    payload: {
      event: 'incident.created',
      incident_id: 'inc_42',
      severity: 'critical',
      title: 'Checkout fails',
      services: ['checkout', 'payments'],
      env: 'production',
      root_cause_summary: 'TypeError: cannot read "total" of undefined at cart.ts:88; 57 sessions affected.',
      dashboard_url: 'https://svc.example/incidents/inc_42',
      ...payload,
    },
    status: 'detected',
    detected_at: '2024-05-01T11:58:00Z',
    acknowledge_url: 'https://svc.example/a/inc_42?sig=ack',
    resolve_url: 'https://svc.example/r/inc_42?sig=res',
    test: false,
    actor: null,
    ...rest,
  };
}
