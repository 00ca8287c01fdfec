import { useEffect, useState } from 'react';
import { authPost, fetchAuthOptions, type AuthOptions } from '../api/console-session';
import type { Me } from '../api/types';
import { AuthField, AuthForm, AuthFrame, field } from './auth-form';
import { KeySignIn } from './key-sign-in';
import { ssoErrorText } from './sign-in-errors';

export interface SignedInHandlers {
  /** A key was checked and kept in the tab. */
  onSignedIn: (me: Me) => void;
  /** The server set a console session's cookie: the console asks `/auth/session` again. */
  onSession: () => void;
}

/** E-mail and password, answered with the session's cookie. */
function PasswordSignIn({ onSession }: Pick<SignedInHandlers, 'onSession'>) {
  const submit = async (data: FormData) => {
    await authPost('/sign-in', { email: field(data, 'email'), password: String(data.get('password') ?? '') });
    onSession();
  };
  return (
    <AuthForm label="Sign in with e-mail" submitLabel="Sign in" busyLabel="Signing in…" onSubmit={submit}>
      <AuthField label="E-mail" name="email" type="email" autoComplete="username" />
      <AuthField label="Password" name="password" type="password" autoComplete="current-password" />
    </AuthForm>
  );
}

/** The ways this server offers a person: single sign-on first when configured, then e-mail and password. */
function PersonSignIn({ options, onSession }: { options: AuthOptions | null } & Pick<SignedInHandlers, 'onSession'>) {
  return (
    <>
      {options?.setup_required && (
        <p role="note" className="hint">
          Nobody has an account here yet: open the set-up link <code>svc-server start</code> printed to create the first
          owner.
        </p>
      )}
      {options?.sso && (
        <a className="button primary sso-button" href="/auth/oidc/start">
          Sign in with {options.sso.name}
        </a>
      )}
      {options?.password !== false && (
        <>
          <PasswordSignIn onSession={onSession} />
          <p className="hint">
            <a href="/reset">Forgot password</a>
          </p>
        </>
      )}
    </>
  );
}

/**
 * `/sign-in` (and any console address before signing in): a person signs in with single sign-on or e-mail and
 * password; machines and old links use an API key ("Use an API key instead"). A single sign-on that failed comes
 * back as `?error=<code>`, shown in words.
 */
export function SignIn({
  onSignedIn,
  onSession,
  notice,
  preferKey = false,
}: SignedInHandlers & {
  notice?: string;
  /** Show the key form first: the tab was signed in with a key (signed out, or the key was refused). */
  preferKey?: boolean;
}) {
  const [options, setOptions] = useState<AuthOptions | null>(null);
  const [withKey, setWithKey] = useState(preferKey);
  const [ssoError] = useState(() => new URLSearchParams(location.search).get('error'));
  useEffect(() => {
    void fetchAuthOptions().then(setOptions);
  }, []);
  return (
    <AuthFrame title="svc console" notice={notice}>
      <p>Sessions, replays, issues, traces, Web Vitals, incidents, notifications and cost of one project.</p>
      {ssoError && (
        <p role="alert" className="state state-error">
          {ssoErrorText(ssoError)}
        </p>
      )}
      {withKey ? <KeySignIn onSignedIn={onSignedIn} /> : <PersonSignIn options={options} onSession={onSession} />}
      <p>
        <button type="button" className="link-button" onClick={() => setWithKey(!withKey)}>
          {withKey ? 'Use e-mail and password instead' : 'Use an API key instead'}
        </button>
      </p>
      <ServerLinks />
    </AuthFrame>
  );
}

const LINK_TEXT: Record<string, string> = {
  demo: 'SDK demo page',
  api_reference: 'API reference',
  openapi: 'OpenAPI document',
};

/** Where else to go on this server: the keyless index (`GET /` as JSON) says whether the demo page is on. */
function ServerLinks() {
  const [links, setLinks] = useState<Record<string, string>>({ api_reference: '/docs/api', openapi: '/openapi.json' });
  useEffect(() => {
    fetch('/', { headers: { accept: 'application/json' }, credentials: 'omit' })
      .then((r) => (r.ok ? (r.json() as Promise<{ links: Record<string, string> }>) : null))
      .then((index) => index && setLinks(index.links))
      .catch(() => undefined);
  }, []);
  const shown = Object.entries(links).filter(([name]) => name in LINK_TEXT);
  return (
    <ul className="hint server-links">
      {shown.map(([name, href]) => (
        <li key={name}>
          <a href={new URL(href, location.href).pathname}>{LINK_TEXT[name]}</a>
        </li>
      ))}
    </ul>
  );
}
