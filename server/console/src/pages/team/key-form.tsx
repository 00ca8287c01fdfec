import { useId, useState, type FormEvent } from 'react';
import { parseResponse } from 'hono/client';
import { keysClient } from '../../api/typed';
import { CopyButton } from '../../ui/copy-button';
import { ActionError, useAction } from '../../ui/use-action';
import type { NewKey } from './types';

const SCOPES = [
  { value: 'ingest', label: 'ingest: sends telemetry (safe in a page)' },
  { value: 'read', label: 'read: views everything, changes nothing' },
  { value: 'control', label: 'control: works the project (CI, scripts)' },
] as const;
type Scope = (typeof SCOPES)[number]['value'];

/** The new key itself, shown this once: only its hash is stored. */
function KeyOnce({ created }: { created: NewKey }) {
  return (
    <div className="panel secret-once" role="region" aria-label="New key">
      <p>
        The {created.scope} key <strong>{created.name}</strong>, shown this once. Copy it now:
      </p>
      <code className="mono">{created.key}</code>
      <CopyButton text={created.key} label={`key ${created.name}`} />
    </div>
  );
}

/** Creates a named machine key of a scope, optionally expiring; shows it once. */
export function KeyForm({ onCreated }: { onCreated: (notice: string) => void }) {
  const id = useId();
  const [created, setCreated] = useState<NewKey>();
  const create = useAction(async (json: { scope: Scope; name: string; expires_in_days?: number }) => {
    const answer = await parseResponse(keysClient.index.$post({ json }));
    setCreated(answer);
    onCreated(`Key ${answer.name} created.`);
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const days = Number(data.get('expires_in_days') || 0);
    void create.run({
      scope: String(data.get('scope')) as Scope,
      name: String(data.get('name') ?? '').trim(),
      ...(days > 0 ? { expires_in_days: days } : {}),
    });
  };
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Create a key</h2>
      <form className="inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} name="name" required autoComplete="off" placeholder="ci-uploads" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-scope`}>Scope</label>
          <select id={`${id}-scope`} name="scope" defaultValue="read">
            {SCOPES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-days`}>Expires in days (empty: never)</label>
          <input id={`${id}-days`} name="expires_in_days" type="number" min={1} />
        </div>
        <button type="submit" className="primary" disabled={create.busy}>
          Create key
        </button>
      </form>
      <ActionError error={create.error} className="state state-error" />
      {created && <KeyOnce created={created} />}
    </section>
  );
}
