import { authPost } from '../api/console-session';
import { AuthField, AuthForm, AuthFrame, field } from './auth-form';
import { useFragmentToken } from './fragment-token';

/** A link without its token: where to get the right one. */
export function MissingToken({ what }: { what: string }) {
  return (
    <p role="alert" className="state state-error">
      This address needs the whole {what} link, including the part after <code>#token=</code>. Open the link again.
    </p>
  );
}

/**
 * `/welcome#token=…`: the first owner of this server, from the one-time link `svc-server start` printed on an empty
 * database. Signed in at once.
 */
export function WelcomePage({ onSession }: { onSession: () => void }) {
  const token = useFragmentToken();
  const submit = async (data: FormData) => {
    const password = String(data.get('password') ?? '');
    await authPost('/setup', { token, email: field(data, 'email'), name: field(data, 'name'), password });
    onSession();
  };
  return (
    <AuthFrame title="Set up svc">
      <p>Create the first owner of this server. Owners invite the others and manage keys and single sign-on.</p>
      {token ? (
        <AuthForm label="First owner" submitLabel="Create owner" busyLabel="Creating…" onSubmit={submit}>
          <AuthField label="E-mail" name="email" type="email" autoComplete="username" autoFocus />
          <AuthField label="Name" name="name" autoComplete="name" />
          <AuthField
            label="Password (8 characters or more)"
            name="password"
            type="password"
            autoComplete="new-password"
          />
        </AuthForm>
      ) : (
        <MissingToken what="set-up" />
      )}
    </AuthFrame>
  );
}
