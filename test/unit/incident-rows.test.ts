import { describe, expect, it } from 'vitest';
import {
  byUrgency,
  incidentEvent,
  incidentView,
  newIncidentRow,
  type IncidentReadRow,
} from '../../server/src/incidents/rows';
import type { IncidentOpening } from '../../server/src/incidents/types';

const T = Date.UTC(2026, 10, 29, 12);

const opening: IncidentOpening = {
  projectId: 'prj_1',
  title: 'TypeError in checkout',
  severity: 'high',
  env: 'production',
  services: ['shop'],
  rootCauseSummary: 'TypeError at cart.ts:88',
  fingerprint: 'fp_1',
  evidence: null,
};

describe('incident rows (server/src/incidents/rows.ts)', () => {
  it('opens a detector incident detected now, with the open key that makes it one per fingerprint', () => {
    const row = newIncidentRow(opening, 'inc_1', T);
    expect(row).toMatchObject({
      id: 'inc_1',
      status: 'detected',
      source: 'detector',
      open_key: 'prj_1:fp_1',
      services: '["shop"]',
      detected_ms: T,
      updated_ms: T,
      escalated_ms: null,
      resolved_ms: null,
    });
  });

  it('opens an API incident without an open key', () => {
    const row = newIncidentRow({ ...opening, fingerprint: null }, 'inc_2', T);
    expect(row).toMatchObject({ source: 'api', open_key: null, fingerprint: null, assignee_id: null });
  });

  it("opens a detector incident assigned to its issue's assignee, the detector named as who assigned it", () => {
    const row = newIncidentRow({ ...opening, assigneeId: 'usr_1' }, 'inc_3', T);
    expect(row).toMatchObject({ assignee_id: 'usr_1', assigned_ms: T, assigned_by: 'detector' });
    expect(newIncidentRow(opening, 'inc_4', T)).toMatchObject({ assignee_id: null, assigned_ms: null });
  });

  it('shows a row as the API does: times in ISO, JSON columns parsed, the link given, no cost yet', () => {
    const row: IncidentReadRow = {
      ...newIncidentRow({ ...opening, assigneeId: 'usr_1' }, 'inc_1', T),
      acknowledged_ms: T + 60_000,
      assignee_email: 'ada@example.com',
      assignee_name: 'Ada',
    };
    expect(incidentView(row, 'https://svc.example/incidents/inc_1')).toMatchObject({
      id: 'inc_1',
      services: ['shop'],
      dashboard_url: 'https://svc.example/incidents/inc_1',
      detected_at: '2026-11-29T12:00:00.000Z',
      acknowledged_at: '2026-11-29T12:01:00.000Z',
      resolved_at: null,
      evidence: null,
      cost_impact: null,
      assignee: { id: 'usr_1', email: 'ada@example.com', name: 'Ada' },
      assigned_at: '2026-11-29T12:00:00.000Z',
      assigned_by: 'detector',
    });
  });

  it('describes an event with what rules match on: severity, environment, services, assignee', () => {
    const row = newIncidentRow(opening, 'inc_1', T);
    expect(incidentEvent(row, 'incident.escalated', T + 5)).toEqual({
      projectId: 'prj_1',
      incidentId: 'inc_1',
      event: 'incident.escalated',
      atMs: T + 5,
      severity: 'high',
      env: 'production',
      services: ['shop'],
      assigneeId: null,
    });
  });

  it('orders open incidents most severe first, then newest first', () => {
    const row = (id: string, severity: IncidentOpening['severity'], at: number) =>
      newIncidentRow({ ...opening, severity }, id, at);
    const rows = [row('a', 'low', T), row('b', 'critical', T), row('c', 'high', T), row('d', 'critical', T + 1)];
    expect(rows.sort(byUrgency).map((r) => r.id)).toEqual(['d', 'b', 'c', 'a']);
  });
});
