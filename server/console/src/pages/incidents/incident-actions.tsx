import { parseResponse } from 'hono/client';
import { incidentsClient } from '../../api/typed';
import { can } from '../../api/types';
import { useMe } from '../../auth/me-context';
import { ActionError, useAction } from '../../ui/use-action';
import type { Incident } from './types';

/** Acknowledge and Resolve (POST); the page shows the incident the server answers. A read key gets a note instead. */
export function IncidentActions({ incident, onChanged }: { incident: Incident; onChanged: () => void }) {
  const me = useMe();
  const {
    run: act,
    busy,
    error,
  } = useAction(async (action: 'acknowledge' | 'resolve') => {
    await parseResponse(
      incidentsClient[':id'][action].$post({ param: { id: encodeURIComponent(incident.id) }, json: {} }),
    );
    onChanged();
  });
  if (incident.status === 'resolved') return null;
  if (!can(me, 'issues.triage'))
    return <p className="hint">Read-only key: acknowledging and resolving need a control key.</p>;
  return (
    <div className="incident-actions" role="group" aria-label="Incident actions">
      {incident.status !== 'acknowledged' && (
        <button type="button" className="primary" disabled={busy} onClick={() => void act('acknowledge')}>
          Acknowledge
        </button>
      )}
      <button type="button" disabled={busy} onClick={() => void act('resolve')}>
        Resolve
      </button>
      <ActionError error={error} as="span" />
    </div>
  );
}
