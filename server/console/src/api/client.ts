import { forgetKey, readKey, readProject } from '../auth/key-store';
import { csrfToken } from './console-session';

/** The control plane's one error shape: `{"error": {"code", "message", "details": {"field"}}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** The error's other details, e.g. `key_scope` of a key refused for its scope. */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** Query values; `undefined` and empty strings are left out so a cleared filter leaves no trace in the request. */
export type Query = Record<string, string | number | boolean | undefined | null | ReadonlyArray<string>>;

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when the server refuses the key (unknown, revoked, expired): the console returns to sign-in. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The query string of `query`; `undefined`, null and empty strings are left out, lists repeat their name. */
export function searchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.set(name, String(value));
  }
  return params;
}

/** The one error shape of an answer that is not ok, as an ApiError (or its status when the body is not that shape). */
export async function readError(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as {
      error?: { code?: string; message?: string; details?: { field?: string } & Record<string, unknown> };
    };
    const e = body.error ?? {};
    return new ApiError(
      res.status,
      e.code ?? 'http_error',
      e.message ?? `${res.status} ${res.statusText}`,
      e.details?.field,
      e.details,
    );
  } catch {
    return new ApiError(res.status, 'http_error', `${res.status} ${res.statusText}`);
  }
}

/** The headers that say who asks: the tab's key (`Bearer`), else the console session's cookie and its CSRF token. */
function credentialHeaders(method: string, key: string | null): Record<string, string> {
  if (key) return { authorization: `Bearer ${key}` };
  const csrf = csrfToken();
  // A cookie session proves same origin on every change (docs/teams.md): the token GET /auth/session gave.
  return csrf && method !== 'GET' && method !== 'HEAD' ? { 'x-svc-csrf': csrf } : {};
}

/**
 * One control-plane call with the tab's key, or without one with the console session's cookie (same origin only).
 * `key` overrides the stored one (sign-in checks a key before keeping it).
 */
export async function apiFetch<T>(
  method: string,
  url: string,
  options: { body?: unknown; signal?: AbortSignal; key?: string } = {},
): Promise<T> {
  const key = options.key ?? readKey();
  const headers: Record<string, string> = { accept: 'application/json', ...credentialHeaders(method, key) };
  // An admin key or a person acts on the project the switcher chose; a key being checked at sign-in on its default one.
  const project = options.key === undefined ? readProject() : null;
  if (project) headers['x-svc-project'] = project;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
    // A key never goes with a cookie; a person's session is the cookie.
    credentials: key ? 'omit' : 'same-origin',
    cache: 'no-store',
  });
  if (!res.ok) {
    const error = await readError(res);
    if (options.key === undefined && refusesCaller(res.status, method, key !== null)) {
      forgetKey();
      for (const listener of signedOutListeners) listener();
    }
    throw error;
  }
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

/**
 * Whether an error answer refuses the caller itself rather than one request. 401: no such key or session. For a key,
 * a 403 on a read too (revoked or expired), since any project key may read; a 403 on a change is a read key's
 * refusal, and a person's 403 is their role's, both of which leave the tab signed in.
 */
const refusesCaller = (status: number, method: string, withKey: boolean) =>
  status === 401 || (withKey && status === 403 && method === 'GET');

/** A keyset page as every control-plane listing answers it. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
