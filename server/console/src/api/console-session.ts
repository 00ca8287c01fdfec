import { ApiError, readError } from './client';

/** `GET /auth/session`: the person signed in to this browser by cookie, and the token their changes carry. */
export interface ConsoleSession {
  person: { id: string; email: string; name: string };
  organisation: { id: string; name: string };
  role: string;
  csrf_token: string;
  expires_at: string;
}

/** `GET /auth/options`: how people may sign in on this server. */
export interface AuthOptions {
  password: boolean;
  sso: { name: string } | null;
  setup_required: boolean;
}

/** The CSRF token of the console session, kept in memory only: a reload asks `/auth/session` again. */
let csrf: string | null = null;

export const csrfToken = (): string | null => csrf;

/** Forgets the session's token (signed out, or a key signed in instead). */
export function forgetSession(): void {
  csrf = null;
}

const isJson = (res: Response) => (res.headers.get('content-type') ?? '').includes('json');

/**
 * The cookie session of this browser, or null when there is none (401, or a server without people's sign-in, which
 * answers no JSON there). Keeps its CSRF token for the control plane's changes.
 */
export async function fetchSession(): Promise<ConsoleSession | null> {
  const res = await fetch('/auth/session', {
    headers: { accept: 'application/json' },
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (!res.ok || !isJson(res)) {
    csrf = null;
    return null;
  }
  const session = (await res.json()) as ConsoleSession;
  csrf = session.csrf_token;
  return session;
}

const NO_OPTIONS: AuthOptions = { password: true, sso: null, setup_required: false };

/** How people sign in here; a server that does not say offers the password form (it answers for itself). */
export async function fetchAuthOptions(): Promise<AuthOptions> {
  try {
    const res = await fetch('/auth/options', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    return res.ok && isJson(res) ? ((await res.json()) as AuthOptions) : NO_OPTIONS;
  } catch {
    return NO_OPTIONS;
  }
}

/**
 * A public sign-in action (`POST /auth/...`): same origin, with the cookie it may set. Answers the body (undefined
 * for 202/204) or throws the server's `ApiError`.
 */
export async function authPost<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`/auth${path}`, {
    method: 'POST',
    // Sign-out of a session proves same origin as the control plane's changes do.
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      ...(csrf ? { 'x-svc-csrf': csrf } : {}),
    },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (!res.ok) throw await readError(res);
  if (!isJson(res)) return undefined as T;
  return (await res.json()) as T;
}

/** Signs the console session out; a session already gone is signed out too. */
export async function signOutSession(): Promise<void> {
  await authPost('/sign-out', {}).catch((e: unknown) => {
    if (!(e instanceof ApiError && e.status === 401)) throw e;
  });
  csrf = null;
}
