import { useId, type ReactNode } from 'react';
import { ApiError } from '../../api/client';

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

/** The error of a save: its message for the field it names, or for the whole form. */
export interface SaveError {
  field?: string;
  message: string;
}

export function saveError(error: unknown): SaveError {
  if (error instanceof ApiError) return { field: formField(error.field), message: error.message };
  return { message: String(error) };
}

/** A labelled input with its hint and, when the server refused it, the error next to it (linked for screen readers). */
export function Field({ label, name, error, hint, children }: { label: string; name: string; error?: SaveError; hint?: string; children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ReactNode }) {
  const id = useId();
  const own = error?.field === name ? error.message : undefined;
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
      {own && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {own}
        </span>
      )}
    </div>
  );
}

/** The error of a save no field of the form shows. */
export function FormError({ error, fields }: { error?: SaveError; fields: readonly string[] }) {
  if (!error || (error.field && fields.includes(error.field))) return null;
  return (
    <p role="alert" className="state state-error">
      {error.message}
    </p>
  );
}

/** A delete that asks first, in place (no browser dialog): Delete → "Delete X?" Confirm / Cancel. */
export function ConfirmDelete({ what, onConfirm, asking, setAsking }: { what: string; onConfirm: () => void; asking: boolean; setAsking: (asking: boolean) => void }) {
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)} aria-label={`Delete ${what}`}>
        Delete
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={`Confirm deleting ${what}`}>
      <span>Delete {what}?</span>
      <button type="button" className="danger" onClick={onConfirm} autoFocus>
        Confirm delete
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
