import { useEffect, useState } from 'react';
import { authPost } from '../api/console-session';
import { AuthField, AuthForm, AuthFrame, field } from './auth-form';
import { useFragmentToken } from './fragment-token';
import { authErrorText } from './sign-in-errors';
import { MissingToken } from './welcome-page';

interface Invitation {
  organisation: { name: string };
  email: string;
  role: string;
}

/** What the invitation offers, asked once (`POST /auth/invitations/inspect`, which does not use it up). */
function useInvitation(token: string | null) {
  const [invitation, setInvitation] = useState<Invitation>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!token) return;
    authPost<Invitation>('/invitations/inspect', { token }).then(setInvitation, (e: unknown) =>
      setError(authErrorText(e)),
    );
  }, [token]);
  return { invitation, error };
}

/**
 * `/join#token=…`: an invitation to an organisation. Shows which and with which role, then creates the account (or,
 * for an e-mail that has one, asks its password) and signs in.
 */
export function JoinPage({ onSession }: { onSession: () => void }) {
  const token = useFragmentToken();
  const { invitation, error } = useInvitation(token);
  const submit = async (data: FormData) => {
    await authPost('/invitations/accept', { token, name: field(data, 'name'), password: String(data.get('password')) });
    onSession();
  };
  if (!token)
    return (
      <AuthFrame title="Join svc">
        <MissingToken what="invitation" />
      </AuthFrame>
    );
  return (
    <AuthFrame title="Join svc">
      {error && (
        <p role="alert" className="state state-error">
          {error}
        </p>
      )}
      {!invitation && !error && (
        <p role="status" className="state">
          Reading the invitation…
        </p>
      )}
      {invitation && (
        <>
          <p>
            You are invited to <strong>{invitation.organisation.name}</strong> as <strong>{invitation.role}</strong>{' '}
            with the e-mail address <strong>{invitation.email}</strong>.
          </p>
          <AuthForm label="Accept the invitation" submitLabel="Join" busyLabel="Joining…" onSubmit={submit}>
            <AuthField label="Your name" name="name" autoComplete="name" autoFocus />
            <AuthField
              label="Password (your existing one if this address has an account)"
              name="password"
              type="password"
              autoComplete="new-password"
            />
          </AuthForm>
        </>
      )}
    </AuthFrame>
  );
}
