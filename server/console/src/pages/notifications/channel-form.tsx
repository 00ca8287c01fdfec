import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { channelsClient } from '../../api/typed';
import { CHANNEL_FIELDS, CHANNEL_LABELS, configFromForm, fieldText } from './channel-kinds';
import { useAction } from '../../ui/use-action';
import { EditForm, Field } from './form-parts';
import { CHANNEL_TYPES, type Channel, type ChannelType } from './types';

/**
 * Creates a channel (`POST .../channels`) or edits one (`PATCH .../channels/{id}`: name and the whole config; a secret
 * left empty is left out, so the server keeps it). A 400 shows next to the field it names.
 */
export function ChannelForm({
  channel,
  onSaved,
  onCancel,
}: {
  channel?: Channel;
  onSaved: (saved: Channel) => void;
  onCancel: () => void;
}) {
  const [type, setType] = useState<ChannelType>(channel?.type ?? 'webhook');
  const fields = CHANNEL_FIELDS[type];
  const save = useAction(async (form: FormData) => {
    const body = { name: String(form.get('name') ?? '').trim(), config: configFromForm(type, form) };
    onSaved(
      channel
        ? await parseResponse(
            channelsClient[':id'].$patch({ param: { id: encodeURIComponent(channel.id) }, json: body }),
          )
        : await parseResponse(channelsClient.index.$post({ json: { type, ...body } })),
    );
  });
  const error = save.error;
  return (
    <EditForm
      title={channel ? `Edit channel ${channel.name}` : 'New channel'}
      submitLabel={channel ? 'Save channel' : 'Create channel'}
      saving={save.busy}
      error={error}
      fields={['type', 'name', ...fields.map((f) => f.path)]}
      onSubmit={(form) => void save.run(form)}
      onCancel={onCancel}
    >
      <div className="form-grid">
        <Field label="Type" name="type" error={error}>
          {(props) => (
            <select
              {...props}
              name="type"
              value={type}
              disabled={channel !== undefined}
              onChange={(e) => setType(e.target.value as ChannelType)}
            >
              {CHANNEL_TYPES.map((t) => (
                <option key={t} value={t}>
                  {CHANNEL_LABELS[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name" name="name" error={error}>
          {(props) => <input {...props} name="name" required defaultValue={channel?.name ?? ''} />}
        </Field>
        {fields.map((f) => {
          const set = channel?.secrets_set.includes(f.path);
          const hint = f.input === 'secret' && set ? `Set. Leave empty to keep it. ${f.hint ?? ''}`.trim() : f.hint;
          return (
            <Field key={`${type}-${f.path}`} label={f.label} name={f.path} error={error} hint={hint}>
              {(props) =>
                f.input === 'checkbox' ? (
                  <input
                    {...props}
                    name={f.path}
                    type="checkbox"
                    defaultChecked={channel ? fieldText(channel.config, f) === 'true' : false}
                  />
                ) : (
                  <input
                    {...props}
                    name={f.path}
                    type={f.input === 'secret' ? 'password' : f.input === 'list' ? 'text' : f.input}
                    autoComplete={f.input === 'secret' ? 'new-password' : 'off'}
                    required={f.required && f.input !== 'secret'}
                    placeholder={f.input === 'secret' && set ? '•••••• (unchanged)' : f.placeholder}
                    defaultValue={channel ? fieldText(channel.config, f) : ''}
                  />
                )
              }
            </Field>
          );
        })}
      </div>
    </EditForm>
  );
}
