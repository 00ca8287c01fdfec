import { useState } from 'react';
import { authPost } from '../api/console-session';
import { AuthField, AuthForm, AuthFrame, field } from './auth-form';
import { useFragmentToken } from './fragment-token';

/** Asks for a reset link by e-mail; the answer is the same whether an account has the address or not. */
function RequestReset() {
  const [sent, setSent] = useState<string | null>(null);
  const submit = async (data: FormData) => {
    const email = field(data, 'email');
    await authPost('/password-reset', { email });
    setSent(email);
  };
  if (sent)
    return (
      <p role="status">
        If <strong>{sent}</strong> has an account here, a link to choose a new password is on its way. It works once and
        expires soon.
      </p>
    );
  return (
    <AuthForm label="Ask for a reset link" submitLabel="Send reset link" busyLabel="Sending…" onSubmit={submit}>
      <AuthField label="E-mail" name="email" type="email" autoComplete="username" autoFocus />
    </AuthForm>
  );
}

/**
 * `/reset`: asks for a password-reset link; `/reset#token=…` (the link from the e-mail) sets the new password and
 * signs in.
 */
export function ResetPage({ onSession }: { onSession: () => void }) {
  const token = useFragmentToken();
  const complete = async (data: FormData) => {
    await authPost('/password-reset/complete', { token, password: String(data.get('password') ?? '') });
    onSession();
  };
  return (
    <AuthFrame title="Reset your password">
      {token ? (
        <AuthForm label="New password" submitLabel="Set password" busyLabel="Saving…" onSubmit={complete}>
          <AuthField
            label="New password (8 characters or more)"
            name="password"
            type="password"
            autoComplete="new-password"
            autoFocus
          />
        </AuthForm>
      ) : (
        <RequestReset />
      )}
      <p className="hint">
        <a href="/sign-in">Back to sign-in</a>
      </p>
    </AuthFrame>
  );
}
