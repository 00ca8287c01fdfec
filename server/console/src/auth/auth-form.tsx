import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { authErrorText } from './sign-in-errors';

/** The frame of the pages a person sees before signing in: the sign-in card with its heading. */
export function AuthFrame({ title, notice, children }: { title: string; notice?: string; children: ReactNode }) {
  return (
    <main id="main" className="sign-in">
      <h1>{title}</h1>
      {notice && (
        <p role="status" className="state">
          {notice}
        </p>
      )}
      {children}
    </main>
  );
}

/** A labelled input of a sign-in form; every one is required. */
export function AuthField({
  label,
  name,
  type = 'text',
  autoComplete,
  autoFocus,
}: {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password';
  autoComplete: string;
  autoFocus?: boolean;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        required
        spellCheck={false}
        minLength={type === 'password' && autoComplete === 'new-password' ? 8 : undefined}
      />
    </>
  );
}

/** The text value of a form field. */
export const field = (data: FormData, name: string): string => String(data.get(name) ?? '').trim();

/**
 * A sign-in form: `onSubmit` gets the form's data and runs the request; while it runs the button says `busyLabel`,
 * and a refusal is shown in words (sign-in-errors.ts) and announced.
 */
export function AuthForm({
  label,
  submitLabel,
  busyLabel,
  onSubmit,
  children,
}: {
  label: string;
  submitLabel: string;
  busyLabel: string;
  onSubmit: (data: FormData) => Promise<void>;
  children: ReactNode;
}) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(new FormData(event.currentTarget));
    } catch (e) {
      setError(authErrorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label={label} aria-describedby={error ? `${id}-error` : undefined}>
      {children}
      {error && (
        <p id={`${id}-error`} role="alert" className="state state-error">
          {error}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </button>
    </form>
  );
}
