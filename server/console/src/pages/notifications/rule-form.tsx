import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Field, FormError, saveError, type SaveError } from './form-error';
import { SEVERITIES, type Channel, type Rule } from './types';

const list = (text: FormDataEntryValue | null) =>
  String(text ?? '')
    .split(/[\s,;]+/)
    .filter(Boolean);

/** Creates a rule (`POST .../rules`, evaluated after the others) or edits one (`PATCH .../rules/{id}`, its place stays). */
export function RuleForm({ rule, channels, onSaved, onCancel }: { rule?: Rule; channels: readonly Channel[]; onSaved: (rule: Rule) => void; onCancel: () => void }) {
  const [error, setError] = useState<SaveError | undefined>();
  const [saving, setSaving] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const severity = form.getAll('severity').map(String);
    const env = list(form.get('env'));
    const services = list(form.get('services'));
    const delay = String(form.get('delay_seconds') ?? '').trim();
    const body = {
      name: String(form.get('name') ?? '').trim(),
      conditions: { ...(severity.length ? { severity } : {}), ...(env.length ? { env } : {}), ...(services.length ? { services } : {}) },
      channels: form.getAll('channels').map(String),
      delay_seconds: delay === '' ? 0 : Number(delay),
    };
    setSaving(true);
    setError(undefined);
    try {
      onSaved(rule ? await api.patch<Rule>(`/notifications/rules/${rule.id}`, body) : await api.post<Rule>('/notifications/rules', body));
    } catch (e) {
      setError(saveError(e));
    } finally {
      setSaving(false);
    }
  };
  const title = rule ? `Edit rule ${rule.name}` : 'New rule';
  const own = (name: string) => (error?.field === name ? error.message : undefined);
  return (
    <form className="panel notify-form" aria-label={title} onSubmit={submit} noValidate>
      <h3>{title}</h3>
      <div className="form-grid">
        <Field label="Name" name="name" error={error}>
          {(props) => <input {...props} name="name" required defaultValue={rule?.name ?? ''} />}
        </Field>
        <Field label="Environments (comma-separated; empty = any)" name="conditions.env" error={error}>
          {(props) => <input {...props} name="env" defaultValue={rule?.conditions.env?.join(', ') ?? ''} placeholder="production" />}
        </Field>
        <Field label="Services (comma-separated; empty = any)" name="conditions.services" error={error}>
          {(props) => <input {...props} name="services" defaultValue={rule?.conditions.services?.join(', ') ?? ''} placeholder="checkout, api" />}
        </Field>
        <Field label="Delay (seconds)" name="delay_seconds" error={error} hint="Escalation: wait this long, and send only if the incident is still open.">
          {(props) => <input {...props} name="delay_seconds" type="number" min={0} inputMode="numeric" defaultValue={rule?.delay_seconds ?? 0} />}
        </Field>
      </div>
      <fieldset className="choice-group" aria-invalid={own('conditions.severity') ? true : undefined}>
        <legend>Severities (none = any)</legend>
        {SEVERITIES.map((s) => (
          <label key={s}>
            <input type="checkbox" name="severity" value={s} defaultChecked={rule?.conditions.severity?.includes(s) ?? false} /> {s}
          </label>
        ))}
        {own('conditions.severity') && (
          <span className="field-error" role="alert">
            {own('conditions.severity')}
          </span>
        )}
      </fieldset>
      <fieldset className="choice-group">
        <legend>Channels</legend>
        {channels.length === 0 && <span className="hint">Create a channel first.</span>}
        {channels.map((c) => (
          <label key={c.id}>
            <input type="checkbox" name="channels" value={c.id} defaultChecked={rule?.channels.includes(c.id) ?? false} /> {c.name}
          </label>
        ))}
        {own('channels') && (
          <span className="field-error" role="alert">
            {own('channels')}
          </span>
        )}
      </fieldset>
      <FormError error={error} fields={['name', 'conditions.env', 'conditions.services', 'delay_seconds', 'conditions.severity', 'channels']} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {rule ? 'Save rule' : 'Create rule'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
