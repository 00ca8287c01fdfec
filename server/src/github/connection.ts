import { createPrivateKey } from 'node:crypto';
import { invalid } from '../shared/domain-errors';
import { requiredString } from '../http/json-object';
import type { RepositoryAuthKind } from './tables';

/** GitHub's public REST API root. */
export const GITHUB_API_URL = 'https://api.github.com';

/** A personal access token or fine-grained token. */
export interface TokenAuth {
  token: string;
}

/** A GitHub App installation: the server mints a short-lived installation token from these. */
export interface AppAuth {
  app_id: number;
  installation_id: number;
  private_key: string;
}

/** An app's repository as the server uses it; `auth` is what the store seals. */
export interface RepositoryConnection {
  owner: string;
  repo: string;
  apiUrl: string;
  /** The app's folder in the repository, '' for its root: the paths of its source maps and tests are relative to it. */
  directory: string;
  auth: { kind: 'token'; secrets: TokenAuth } | { kind: 'app'; secrets: AppAuth };
}

/** What the API answers for a connection: never a secret. */
export const connectionJson = (appName: string, c: RepositoryConnection) => ({
  app: appName,
  owner: c.owner,
  repo: c.repo,
  api_url: c.apiUrl,
  directory: c.directory,
  auth: c.auth.kind satisfies RepositoryAuthKind,
});

/** GitHub's rule for owner and repository names: letters, digits, `-`, `_` and `.`. */
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const ALLOWED = ['owner', 'repo', 'api_url', 'directory', 'token', 'app_id', 'installation_id', 'private_key'];

function githubName(body: Record<string, unknown>, field: string): string {
  const value = requiredString(body, field, 100);
  if (!NAME.test(value) || value === '.' || value === '..')
    throw invalid(`${field} must be a GitHub ${field} name: letters, digits, "-", "_" and "."`, 'invalid_request', {
      field,
    });
  return value;
}

function apiUrl(value: unknown): string {
  if (value === undefined) return GITHUB_API_URL;
  if (typeof value !== 'string' || !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(value)) {
    throw invalid('api_url must be an http(s) URL: GitHub Enterprise\'s "https://<host>/api/v3"', 'invalid_request', {
      field: 'api_url',
    });
  }
  return value.replace(/\/+$/, '');
}

function directory(value: unknown): string {
  if (value === undefined || value === '') return '';
  const path = typeof value === 'string' ? value.replace(/^\/+|\/+$/g, '') : '';
  if (
    path === '' ||
    path.length > 500 ||
    path.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw invalid('directory must be a folder path inside the repository, such as "apps/web"', 'invalid_request', {
      field: 'directory',
    });
  }
  return path;
}

function positiveId(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw invalid(`${field} must be a positive integer`, 'invalid_request', { field });
  return value;
}

function authOf(body: Record<string, unknown>): RepositoryConnection['auth'] {
  const appFields = ['app_id', 'installation_id', 'private_key'].filter((f) => body[f] !== undefined);
  if (body.token !== undefined && appFields.length > 0)
    throw invalid(
      'send either token or a GitHub App installation (app_id, installation_id, private_key), not both',
      'invalid_request',
      { field: appFields[0] },
    );
  if (appFields.length === 0) return { kind: 'token', secrets: { token: requiredString(body, 'token', 1000) } };
  return {
    kind: 'app',
    secrets: {
      app_id: positiveId(body, 'app_id'),
      installation_id: positiveId(body, 'installation_id'),
      private_key: rsaPrivateKey(body),
    },
  };
}

/** The App's private key, checked by parsing it: a key GitHub did not issue fails here, not at the first pull request. */
function rsaPrivateKey(body: Record<string, unknown>): string {
  const pem = requiredString(body, 'private_key', 10_000);
  const refuse = (why: string) =>
    invalid(
      `private_key must be the GitHub App's PEM RSA private key (the .pem file GitHub generates, unencrypted): ${why}`,
      'invalid_request',
      { field: 'private_key' },
    );
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw refuse('it does not parse as a PEM private key');
  }
  if (type !== 'rsa') throw refuse(`it is a key of type ${type ?? 'unknown'}, not rsa`);
  return pem;
}

/** The body of `PUT /control-plane/apps/{app}/repository`; a 400 names the first wrong field. */
export function parseConnection(body: Record<string, unknown>): RepositoryConnection {
  const unknown = Object.keys(body).find((key) => !ALLOWED.includes(key));
  if (unknown !== undefined)
    throw invalid(
      `unknown field "${unknown}"; send owner, repo, api_url?, directory? and token or app_id, installation_id, private_key`,
      'invalid_request',
      { field: unknown },
    );
  return {
    owner: githubName(body, 'owner'),
    repo: githubName(body, 'repo'),
    apiUrl: apiUrl(body.api_url),
    directory: directory(body.directory),
    auth: authOf(body),
  };
}
