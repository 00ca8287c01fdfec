import { createHash, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server speaking GitHub's REST wire format for what the server's octokit calls to open a fix (repos get,
 * commits, git refs, commits, trees and blobs, contents, pulls list and create), over one in-memory repository with
 * real git object ids. Every request is recorded; tests inject failures (429 with Retry-After, 422, 500) and slow
 * answers per route. It refuses what GitHub refuses, as GitHub does (422, `message` and `documentation_url`): a new
 * ref not fully qualified (`refs/heads/x`), a tree entry without a valid `mode` and `type`. As GitHub, it mints
 * installation tokens for a GitHub App (`POST /app/installations/{id}/access_tokens` with the App's RS256 JWT) and
 * refuses a token it does not know with 401.
 */

export interface GithubRequest {
  method: string;
  /** The path without the query, decoded. */
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
  authorization: string | undefined;
}

export interface InjectedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Injection {
  method: string;
  path: RegExp;
  answer?: InjectedAnswer;
  delayMs?: number;
  times: number;
}

export interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  headSha: string;
  base: string;
  state: 'open' | 'closed';
}

/** A GitHub App the fake knows: its id, the public half of its key, and where it is installed. */
export interface FakeGithubApp {
  id: number;
  publicKey: KeyObject | string;
  installations: number[];
}

/** The claims of an App's JWT, as verified. */
export interface AppJwtClaims {
  iss: number | string;
  iat: number;
  exp: number;
}

/** An installation token the fake minted, with the JWT it was minted for. */
export interface MintedToken {
  installationId: number;
  token: string;
  jwt: string;
  claims: AppJwtClaims;
}

interface Commit {
  tree: string;
  parents: string[];
  message: string;
}

export interface FakeGithub {
  /** The API root to connect with (`api_url`). */
  url: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  requests: GithubRequest[];
  pulls: FakePull[];
  installationTokens: MintedToken[];
  /** The commit a branch points at, or undefined. */
  branch(name: string): string | undefined;
  /** The files of a commit (or a branch's head), path → text. */
  files(ref: string): Record<string, string>;
  commit(sha: string): Commit;
  /** A commit on the default branch writing `files` (text, or null to delete); returns its SHA. */
  push(files: Record<string, string | null>, message?: string): string;
  /** Answers the next `times` requests matching `method` and `path` with `answer`, after `delayMs` when given. */
  inject(method: string, path: RegExp, injection: { answer?: InjectedAnswer; delayMs?: number; times?: number }): void;
  close(): Promise<void>;
}

const gitHash = (kind: string, content: Buffer): string =>
  createHash('sha1').update(`${kind} ${content.length}\0`).update(content).digest('hex');

class Objects {
  readonly blobs = new Map<string, Buffer>();
  /** Trees as flat maps, path → blob SHA: enough for a repository this server reads file by file. */
  readonly trees = new Map<string, Map<string, string>>();
  readonly commits = new Map<string, Commit>();

  blob(content: Buffer): string {
    const sha = gitHash('blob', content);
    this.blobs.set(sha, content);
    return sha;
  }

  tree(entries: Map<string, string>): string {
    const sorted = new Map([...entries].sort(([a], [b]) => a.localeCompare(b)));
    const sha = gitHash('tree', Buffer.from(JSON.stringify([...sorted])));
    this.trees.set(sha, sorted);
    return sha;
  }

  commit(commit: Commit): string {
    const sha = gitHash('commit', Buffer.from(JSON.stringify(commit)));
    this.commits.set(sha, commit);
    return sha;
  }
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const notFound = () => new HttpFailure(404, 'Not Found');

/** GitHub's answer to a body its schema refuses. */
const invalidRequest = (why: string) => new HttpFailure(422, `Invalid request.\n\n${why}`);

/** GitHub's rule for `POST /git/refs`: the fully qualified name, starting with `refs` and with at least two slashes. */
function newRefName(ref: unknown): string {
  if (typeof ref !== 'string') throw invalidRequest('"ref" wasn\'t supplied.');
  if (!/^refs\/[^/]+\/./.test(ref))
    throw new HttpFailure(422, 'Reference name must contain at least three slash-separated components.');
  return ref.slice('refs/'.length);
}

/** The modes a tree entry may have, with the type each goes with (GitHub's create-a-tree parameters). */
const TREE_MODES: Record<string, string> = {
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'blob',
  '040000': 'tree',
  '160000': 'commit',
};

interface TreeEntry {
  path: string;
  sha: string | null;
}

/**
 * A `POST /git/trees` entry as GitHub checks it: a path, a known `mode` and its `type`, and a `sha` (null deletes; the
 * fake takes no `content`).
 */
function treeEntry(entry: Record<string, unknown>): TreeEntry {
  for (const field of ['path', 'mode', 'type'])
    if (typeof entry[field] !== 'string') throw invalidRequest(`"${field}" wasn't supplied.`);
  const { mode, type } = entry as { mode: string; type: string };
  const oneOf = (field: string, value: string, allowed: string[]) => {
    if (!allowed.includes(value))
      throw invalidRequest(`For 'properties/${field}', "${value}" is not one of ${JSON.stringify(allowed)}.`);
  };
  oneOf('mode', mode, Object.keys(TREE_MODES));
  oneOf('type', type, ['blob', 'tree', 'commit']);
  if (TREE_MODES[mode] !== type) throw new HttpFailure(422, 'Invalid tree info');
  if (entry.sha !== null && typeof entry.sha !== 'string') throw invalidRequest('"sha" wasn\'t supplied.');
  return { path: entry.path as string, sha: entry.sha };
}

function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text ? (JSON.parse(text) as Record<string, unknown>) : undefined);
    });
  });
}

const unauthorized = (message = 'Bad credentials') => new HttpFailure(401, message);

/** GitHub's rule for an App's JWT: RS256, signed with the App's key, issued by its id, expiring within 10 minutes. */
function verifyAppJwt(
  authorization: string | undefined,
  app: FakeGithubApp,
  nowS: number,
): { jwt: string; claims: AppJwtClaims } {
  const jwt = authorization?.match(/^bearer (\S+)$/i)?.[1];
  const parts = jwt?.split('.') ?? [];
  if (jwt === undefined || parts.length !== 3) throw unauthorized('A JSON web token could not be decoded');
  const [header, payload, signature] = parts as [string, string, string];
  const decode = (part: string) =>
    JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (
    decode(header).alg !== 'RS256' ||
    !verify('sha256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature, 'base64url'))
  ) {
    throw unauthorized('A JSON web token could not be decoded');
  }
  const claims = decode(payload) as unknown as AppJwtClaims;
  if (String(claims.iss) !== String(app.id)) throw unauthorized("'Issuer' claim ('iss') must be the App's id");
  if (!Number.isInteger(claims.iat) || claims.iat > nowS + 60)
    throw unauthorized(
      "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
    );
  if (!Number.isInteger(claims.exp) || claims.exp <= nowS)
    throw unauthorized(
      "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    );
  if (claims.exp > nowS + 600) throw unauthorized("'Expiration time' claim ('exp') is too far in the future");
  return { jwt, claims };
}

/**
 * `tokens`: the personal tokens the repository accepts (omitted: any personal token); installation tokens (`ghs_…`) are
 * accepted only when `app` minted them and until they expire.
 */
export async function startFakeGithub(options: {
  owner?: string;
  repo?: string;
  defaultBranch?: string;
  files: Record<string, string>;
  tokens?: string[];
  app?: FakeGithubApp;
}): Promise<FakeGithub> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'shop';
  const defaultBranch = options.defaultBranch ?? 'main';
  const objects = new Objects();
  const refs = new Map<string, string>();
  const pulls: FakePull[] = [];
  const requests: GithubRequest[] = [];
  const injections: Injection[] = [];
  const installationTokens: MintedToken[] = [];
  const expiries = new Map<string, number>();
  let url = '';

  const treeOf = (commitSha: string) => objects.trees.get(objects.commits.get(commitSha)!.tree)!;
  const writeCommit = (parent: string | null, files: Record<string, string | null>, message: string) => {
    const entries = new Map(parent ? treeOf(parent) : []);
    for (const [path, text] of Object.entries(files)) {
      if (text === null) entries.delete(path);
      else entries.set(path, objects.blob(Buffer.from(text)));
    }
    return objects.commit({ tree: objects.tree(entries), parents: parent ? [parent] : [], message });
  };
  refs.set(`heads/${defaultBranch}`, writeCommit(null, options.files, 'Initial commit'));

  /** A branch name or a (possibly short) commit SHA → the full commit SHA. */
  const resolve = (ref: string): string | undefined => {
    const branch = refs.get(`heads/${ref}`);
    if (branch) return branch;
    if (!/^[0-9a-f]{7,40}$/.test(ref)) return undefined;
    const matches = [...objects.commits.keys()].filter((sha) => sha.startsWith(ref));
    return matches.length === 1 ? matches[0] : undefined;
  };
  const commitJson = (sha: string) => {
    const c = objects.commits.get(sha)!;
    return {
      sha,
      url: `${url}/repos/${owner}/${repo}/git/commits/${sha}`,
      message: c.message,
      tree: { sha: c.tree },
      parents: c.parents.map((p) => ({ sha: p })),
    };
  };
  const refJson = (name: string) => ({ ref: `refs/${name}`, object: { type: 'commit', sha: refs.get(name)! } });
  const pullJson = (p: FakePull) => ({
    number: p.number,
    state: p.state,
    title: p.title,
    body: p.body,
    html_url: `${url}/${owner}/${repo}/pull/${p.number}`,
    head: { ref: p.head, sha: p.headSha, label: `${owner}:${p.head}` },
    base: { ref: p.base },
  });

  const routes: Array<[string, RegExp, (m: RegExpMatchArray, r: GithubRequest) => [number, unknown]]> = [
    [
      'GET',
      /^$/,
      () => [200, { name: repo, full_name: `${owner}/${repo}`, default_branch: defaultBranch, private: true }],
    ],
    [
      'GET',
      /^\/commits\/(.+)$/,
      ([, ref]) => {
        const sha = resolve(ref!);
        if (!sha) throw new HttpFailure(422, `No commit found for SHA: ${ref}`);
        return [
          200,
          {
            sha,
            commit: { message: objects.commits.get(sha)!.message, tree: { sha: objects.commits.get(sha)!.tree } },
          },
        ];
      },
    ],
    [
      'GET',
      /^\/contents\/(.+)$/,
      ([, path], r) => {
        const sha = resolve(r.query.get('ref') ?? defaultBranch);
        const blob = sha && treeOf(sha).get(path!);
        if (!blob) throw notFound();
        return [
          200,
          {
            type: 'file',
            encoding: 'base64',
            path,
            name: path!.split('/').pop(),
            sha: blob,
            size: objects.blobs.get(blob)!.length,
            content: objects.blobs.get(blob)!.toString('base64'),
          },
        ];
      },
    ],
    [
      'GET',
      /^\/git\/ref\/(.+)$/,
      ([, name]) => {
        if (!refs.has(name!)) throw notFound();
        return [200, refJson(name!)];
      },
    ],
    [
      'POST',
      /^\/git\/refs$/,
      (_m, r) => {
        const name = newRefName(r.body?.ref);
        const sha = String(r.body?.sha ?? '');
        if (refs.has(name)) throw new HttpFailure(422, 'Reference already exists');
        if (!objects.commits.has(sha)) throw new HttpFailure(422, 'Object does not exist');
        refs.set(name, sha);
        return [201, refJson(name)];
      },
    ],
    [
      'DELETE',
      /^\/git\/refs\/(.+)$/,
      ([, name]) => {
        if (!refs.delete(name!)) throw new HttpFailure(422, 'Reference does not exist');
        return [204, undefined];
      },
    ],
    [
      'GET',
      /^\/git\/commits\/([0-9a-f]{40})$/,
      ([, sha]) => {
        if (!objects.commits.has(sha!)) throw notFound();
        return [200, commitJson(sha!)];
      },
    ],
    [
      'POST',
      /^\/git\/commits$/,
      (_m, r) => {
        const parents = (r.body?.parents as string[] | undefined) ?? [];
        const tree = String(r.body?.tree ?? '');
        if (!objects.trees.has(tree) || parents.some((p) => !objects.commits.has(p)))
          throw new HttpFailure(422, 'Tree or parent does not exist');
        return [201, commitJson(objects.commit({ tree, parents, message: String(r.body?.message ?? '') }))];
      },
    ],
    [
      'POST',
      /^\/git\/trees$/,
      (_m, r) => {
        const base =
          r.body?.base_tree === undefined ? new Map<string, string>() : objects.trees.get(String(r.body.base_tree));
        if (!base) throw new HttpFailure(422, 'base_tree does not exist');
        const entries = new Map(base);
        for (const e of ((r.body?.tree as Array<Record<string, unknown>> | undefined) ?? []).map(treeEntry)) {
          if (e.sha === null) entries.delete(e.path);
          else if (!objects.blobs.has(e.sha)) throw new HttpFailure(422, `blob ${e.sha} does not exist`);
          else entries.set(e.path, e.sha);
        }
        return [201, { sha: objects.tree(entries) }];
      },
    ],
    [
      'POST',
      /^\/git\/blobs$/,
      (_m, r) => {
        const encoding = r.body?.encoding === 'base64' ? 'base64' : 'utf8';
        return [201, { sha: objects.blob(Buffer.from(String(r.body?.content ?? ''), encoding)) }];
      },
    ],
    [
      'GET',
      /^\/pulls$/,
      (_m, r) => {
        const head = r.query.get('head');
        const state = r.query.get('state') ?? 'open';
        const found = pulls.filter(
          (p) => (state === 'all' || p.state === state) && (!head || `${owner}:${p.head}` === head),
        );
        return [200, found.map(pullJson)];
      },
    ],
    [
      'POST',
      /^\/pulls$/,
      (_m, r) => {
        const head = String(r.body?.head ?? '');
        const headSha = refs.get(`heads/${head}`);
        if (!headSha) throw new HttpFailure(422, 'Validation Failed: head does not exist');
        const pull: FakePull = {
          number: pulls.length + 1,
          title: String(r.body?.title),
          body: String(r.body?.body ?? ''),
          head,
          headSha,
          base: String(r.body?.base),
          state: 'open',
        };
        pulls.push(pull);
        return [201, pullJson(pull)];
      },
    ],
  ];

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const mintToken = (installationId: number, request: GithubRequest): [number, unknown] => {
    if (!options.app) throw notFound();
    const nowMs = Date.now();
    const { jwt, claims } = verifyAppJwt(request.authorization, options.app, Math.floor(nowMs / 1000));
    if (!options.app.installations.includes(installationId)) throw notFound();
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expiresAt = nowMs + 3_600_000;
    expiries.set(token, expiresAt);
    installationTokens.push({ installationId, token, jwt, claims });
    const permissions = { contents: 'write', metadata: 'read', pull_requests: 'write' };
    return [
      201,
      {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
        permissions,
        repository_selection: 'selected',
      },
    ];
  };

  /** A private repository: unseen without credentials (404), refused with ones GitHub does not know (401). */
  const authorize = (authorization: string | undefined) => {
    const token = authorization?.match(/^(?:token|bearer) (\S+)$/i)?.[1];
    if (token === undefined) throw notFound();
    const known = token.startsWith('ghs_')
      ? (expiries.get(token) ?? 0) > Date.now()
      : (options.tokens?.includes(token) ?? true);
    if (!known) throw unauthorized();
  };

  const route = (request: GithubRequest): [number, unknown] => {
    const installation =
      request.method === 'POST' ? request.path.match(/^\/app\/installations\/(\d+)\/access_tokens$/) : null;
    if (installation) return mintToken(Number(installation[1]), request);
    const prefix = `/repos/${owner}/${repo}`;
    if (!request.path.startsWith(prefix)) throw notFound();
    authorize(request.authorization);
    const rest = request.path.slice(prefix.length);
    for (const [method, pattern, handle] of routes) {
      const match = method === request.method ? rest.match(pattern) : null;
      if (match) return handle(match, request);
    }
    throw notFound();
  };

  const answer = (request: GithubRequest, res: ServerResponse) => {
    const injection = injections.find((i) => i.times > 0 && i.method === request.method && i.path.test(request.path));
    const reply = () => {
      if (injection?.answer)
        return send(
          res,
          injection.answer.status,
          injection.answer.body ?? { message: 'injected failure' },
          injection.answer.headers,
        );
      try {
        const [status, body] = route(request);
        return send(res, status, body);
      } catch (err) {
        if (err instanceof HttpFailure)
          return send(res, err.status, { message: err.message, documentation_url: 'https://docs.github.com/rest' });
        throw err;
      }
    };
    if (injection) injection.times -= 1;
    if (injection?.delayMs) setTimeout(reply, injection.delayMs);
    else reply();
  };

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const parsed = new URL(req.url ?? '/', 'http://fake');
      const request: GithubRequest = {
        method: req.method ?? '',
        path: decodeURIComponent(parsed.pathname),
        query: parsed.searchParams,
        body,
        authorization: req.headers.authorization,
      };
      requests.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    owner,
    repo,
    defaultBranch,
    requests,
    pulls,
    installationTokens,
    branch: (name) => refs.get(`heads/${name}`),
    files(ref) {
      const sha = resolve(ref);
      if (!sha) throw new Error(`no commit ${ref}`);
      return Object.fromEntries(
        [...treeOf(sha)].map(([path, blob]) => [path, objects.blobs.get(blob)!.toString('utf8')]),
      );
    },
    commit: (sha) => objects.commits.get(sha)!,
    push(files, message = 'A change') {
      const sha = writeCommit(refs.get(`heads/${defaultBranch}`)!, files, message);
      refs.set(`heads/${defaultBranch}`, sha);
      return sha;
    },
    inject(method, path, injection) {
      injections.push({
        method,
        path,
        answer: injection.answer,
        delayMs: injection.delayMs,
        times: injection.times ?? 1,
      });
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
