import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import { canWrite } from '../../api/types';
import { useMe } from '../../auth/me-context';
import type { Incident } from './types';

/** Acknowledge and Resolve (POST); the page shows the incident the server answers. A read key gets a note instead. */
export function IncidentActions({ incident, onChanged }: { incident: Incident; onChanged: () => void }) {
  const me = useMe();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  if (incident.status === 'resolved') return null;
  if (!canWrite(me)) return <p className="hint">Read-only key: acknowledging and resolving need a control key.</p>;
  const act = async (action: 'acknowledge' | 'resolve') => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/incidents/${encodeURIComponent(incident.id)}/${action}`);
      onChanged();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
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
      {error && (
        <span role="alert" className="state-error">
          {error}
        </span>
      )}
    </div>
  );
}
