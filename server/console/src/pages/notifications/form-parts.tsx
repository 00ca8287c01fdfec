import { useId, type FormEvent, type ReactNode } from 'react';
import { ConfirmAction } from '../../ui/confirm-action';
import type { ActionFailure } from '../../ui/use-action';

/* The pieces the notification sections edit with: fields showing the server's errors, the form, the section head,
   a delete that asks first. */

/**
 * The form field a 400 names: `config.smtp.port` → `smtp.port`, `config.to[2]` → `to`, `channels[0]` → `channels`,
 * `conditions.severity.1` → `conditions.severity`. Anything else stays as the server wrote it (shown above the form).
 */
export function formField(field: string | undefined): string | undefined {
  if (!field) return undefined;
  return field
    .replace(/^config\./, '')
    .replace(/\[\d+\]/g, '')
    .replace(/\.\d+(?=\.|$)/g, '');
}

/** The message of `error` when it names the form field `name`. */
const messageFor = (error: ActionFailure | undefined, name: string) =>
  error && formField(error.field) === name ? error.message : undefined;

/** The server's refusal next to the field (or group of choices) it names, announced; linked by `id` when given. */
export function FieldError({ error, name, id }: { error?: ActionFailure; name: string; id?: string }) {
  const own = messageFor(error, name);
  if (!own) return null;
  return (
    <span id={id} className="field-error" role="alert">
      {own}
    </span>
  );
}

/** A labelled input with its hint and, when the server refused it, the error next to it (linked for screen readers). */
export function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  label: string;
  name: string;
  error?: ActionFailure;
  hint?: string;
  children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const own = messageFor(error, name);
  const describedBy = [hint ? `${id}-hint` : '', own ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${own ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': own ? true : undefined, 'aria-describedby': describedBy })}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      <FieldError error={error} name={name} id={`${id}-error`} />
    </div>
  );
}

/**
 * A create/edit form of this page: its title, the fields, the error of a save no field shows (`fields` are those that
 * show their own), and the submit and Cancel buttons. `onSubmit` gets the form's data.
 */
export function EditForm({
  title,
  submitLabel,
  saving,
  error,
  fields,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  submitLabel: string;
  saving: boolean;
  error?: ActionFailure;
  fields: readonly string[];
  onSubmit: (form: FormData) => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit(new FormData(event.currentTarget));
  };
  const shown = error?.field !== undefined && fields.includes(formField(error.field)!);
  return (
    <form className="panel notify-form" aria-label={title} onSubmit={submit} noValidate>
      <h3>{title}</h3>
      {children}
      {error && !shown && (
        <p role="alert" className="state state-error">
          {error.message}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A delete that asks first, in place (no browser dialog): Delete → "Delete X?" Confirm / Cancel. */
export function ConfirmDelete(props: Omit<Parameters<typeof ConfirmAction>[0], 'verb' | 'gerund'>) {
  return <ConfirmAction verb="Delete" gerund="deleting" {...props} />;
}

/** A section's heading and, when `onNew` is given (a key that may change things, no form open), its "New …" button. */
export function SectionHead({
  id,
  title,
  newLabel,
  onNew,
}: {
  id: string;
  title: string;
  newLabel: string;
  onNew?: () => void;
}) {
  return (
    <div className="section-head">
      <h2 id={id}>{title}</h2>
      {onNew && (
        <button type="button" className="primary" onClick={onNew}>
          {newLabel}
        </button>
      )}
    </div>
  );
}
