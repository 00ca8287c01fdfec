import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { fetchMe, type Me } from '../api/types';
import { storeKey } from './key-store';

/** Why a key was refused, in words a person can act on: an ingest key is the likely mistake (it sits beside the snippet). */
export function refusalMessage(e: unknown): string {
  if (e instanceof ApiError && e.status === 403 && e.details.key_scope === 'ingest') {
    return 'This is an ingest key: it only sends telemetry. Use a read or control key.';
  }
  if (e instanceof ApiError && (e.status === 401 || e.status === 403))
    return 'This key was refused: it is unknown, revoked, expired or not a control-plane key.';
  return `Could not sign in: ${(e as Error).message}`;
}

/**
 * Sign-in with a control, read or admin key, for machines and scripts. The key is checked against `/control-plane/me`
 * before it is kept, and kept only in this tab. Nothing else is asked: the key alone names the project.
 */
export function KeySignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const key = String(new FormData(event.currentTarget).get('key') ?? '').trim();
    if (!key) {
      setError('Enter a key: svc-server keys create --scope read makes one');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const me = await fetchMe(key);
      storeKey(key);
      onSignedIn(me);
    } catch (e) {
      setError(refusalMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Sign in with an API key" aria-describedby={`${id}-help`}>
      <label htmlFor={`${id}-key`}>Control or read key</label>
      <input
        id={`${id}-key`}
        name="key"
        type="password"
        autoComplete="off"
        autoFocus
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-errormessage={error ? `${id}-error` : undefined}
      />
      <p id={`${id}-help`} className="hint">
        Kept in this tab only and sent only in the Authorization header. A key that only looks:{' '}
        <code>svc-server keys create --scope read</code>; an admin key switches between its projects.
      </p>
      {error && (
        <p id={`${id}-error`} role="alert" className="state state-error">
          {error}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
