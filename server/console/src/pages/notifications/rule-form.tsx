import { parseResponse } from 'hono/client';
import { rulesClient } from '../../api/typed';
import { useAction } from '../../ui/use-action';
import { EditForm, Field, FieldError, formField } from './form-parts';
import { SEVERITIES, type Channel, type Rule } from './types';

const list = (text: FormDataEntryValue | null) =>
  String(text ?? '')
    .split(/[\s,;]+/)
    .filter(Boolean);

/** Creates a rule (`POST .../rules`, evaluated after the others) or edits one (`PATCH .../rules/{id}`, its place stays). */
export function RuleForm({
  rule,
  channels,
  onSaved,
  onCancel,
}: {
  rule?: Rule;
  channels: readonly Channel[];
  onSaved: (rule: Rule) => void;
  onCancel: () => void;
}) {
  const save = useAction(async (form: FormData) => {
    // The boxes are offered in SEVERITIES order, so this keeps the order they were ticked in the form.
    const severity = SEVERITIES.filter((s) => form.getAll('severity').includes(s));
    const env = list(form.get('env'));
    const services = list(form.get('services'));
    const delay = String(form.get('delay_seconds') ?? '').trim();
    const body = {
      name: String(form.get('name') ?? '').trim(),
      conditions: {
        ...(severity.length ? { severity } : {}),
        ...(env.length ? { env } : {}),
        ...(services.length ? { services } : {}),
      },
      channels: form.getAll('channels').map(String),
      delay_seconds: delay === '' ? 0 : Number(delay),
    };
    onSaved(
      rule
        ? await parseResponse(rulesClient[':id'].$patch({ param: { id: encodeURIComponent(rule.id) }, json: body }))
        : await parseResponse(rulesClient.index.$post({ json: body })),
    );
  });
  const error = save.error;
  return (
    <EditForm
      title={rule ? `Edit rule ${rule.name}` : 'New rule'}
      submitLabel={rule ? 'Save rule' : 'Create rule'}
      saving={save.busy}
      error={error}
      fields={['name', 'conditions.env', 'conditions.services', 'delay_seconds', 'conditions.severity', 'channels']}
      onSubmit={(form) => void save.run(form)}
      onCancel={onCancel}
    >
      <div className="form-grid">
        <Field label="Name" name="name" error={error}>
          {(props) => <input {...props} name="name" required defaultValue={rule?.name ?? ''} />}
        </Field>
        <Field label="Environments (comma-separated; empty = any)" name="conditions.env" error={error}>
          {(props) => (
            <input
              {...props}
              name="env"
              defaultValue={rule?.conditions.env?.join(', ') ?? ''}
              placeholder="production"
            />
          )}
        </Field>
        <Field label="Services (comma-separated; empty = any)" name="conditions.services" error={error}>
          {(props) => (
            <input
              {...props}
              name="services"
              defaultValue={rule?.conditions.services?.join(', ') ?? ''}
              placeholder="checkout, api"
            />
          )}
        </Field>
        <Field
          label="Delay (seconds)"
          name="delay_seconds"
          error={error}
          hint="Escalation: wait this long, and send only if the incident is still open."
        >
          {(props) => (
            <input
              {...props}
              name="delay_seconds"
              type="number"
              min={0}
              inputMode="numeric"
              defaultValue={rule?.delay_seconds ?? 0}
            />
          )}
        </Field>
      </div>
      <fieldset
        className="choice-group"
        aria-invalid={error && formField(error.field) === 'conditions.severity' ? true : undefined}
      >
        <legend>Severities (none = any)</legend>
        {SEVERITIES.map((s) => (
          <label key={s}>
            <input
              type="checkbox"
              name="severity"
              value={s}
              defaultChecked={rule?.conditions.severity?.includes(s) ?? false}
            />{' '}
            {s}
          </label>
        ))}
        <FieldError error={error} name="conditions.severity" />
      </fieldset>
      <fieldset className="choice-group">
        <legend>Channels</legend>
        {channels.length === 0 && <span className="hint">Create a channel first.</span>}
        {channels.map((c) => (
          <label key={c.id}>
            <input
              type="checkbox"
              name="channels"
              value={c.id}
              defaultChecked={rule?.channels.includes(c.id) ?? false}
            />{' '}
            {c.name}
          </label>
        ))}
        <FieldError error={error} name="channels" />
      </fieldset>
    </EditForm>
  );
}
