import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishAnalysis, queueAnalysis, type AnalysisResult } from '../../server/src/ai/store';
import { reproductionTest } from '../../server/src/ai/reproduction';
import { githubClient, githubFailure } from '../../server/src/github/client';
import { refusalOf } from '../../server/src/http/errors';
import { openFixPullRequest } from '../../server/src/github/pull-request';
import type { LogItem } from '../../src/pipeline/items';
import { ENCODE_BODY } from '../../src/pipeline/otlp-json';
import { chunkBody, eventsJson } from '../../src/replay/encode';
import { describeException, exceptionAttributes, exceptionBody } from '../../src/signals/exception';
import { API_KEY_HEADER, INGEST_PATHS } from '../../wire/paths';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { startFakeGithub, type FakeGithub } from '../support/fake-github';
import type { IssuePage } from '../support/issues';
import { click, el, pageLoad, txt, type RrwebEvent } from '../support/rrweb';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Fix pull requests (docs/ai-fixes.md, "Repository and pull requests") on the real server over HTTP, on SQLite and
 * PostgreSQL, against a local server speaking GitHub's REST wire format: a repository connected with its token sealed,
 * the pull request opened from a seeded analysis with the patched file and the reproduction test, on a branch rebased
 * onto the default branch, which stays untouched; a second request returning it; and GitHub's refusals (a patch that
 * does not apply, a pull request refused after the branch exists, rate limits, an unknown token) leaving nothing behind.
 * A GitHub App installation: its key sealed, its installation token minted with a JWT the fake verifies and sent on
 * every repository call, an unknown installation refused before anything is written.
 */
const kinds = await databaseKinds();

const T = 1_790_000_000_000;
const TOKEN = 'ghp_fakeTokenForTheTests0123456789abcdef';
/** A GitHub App, its key pair made here: GitHub hands out PKCS#1 PEM keys; the fake verifies the JWTs with the public half. */
const APP_ID = 123456;
const INSTALLATION_ID = 7890;
const APP_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const PRICE_ERROR = "Cannot read properties of undefined (reading 'price')";
const QTY_ERROR = "Cannot read properties of undefined (reading 'qty')";
const STOCK_ERROR = 'stock is not a function';
const COUPON_ERROR = 'coupon is undefined';

const TOTAL_TS = `export function lineTotal(item: { product?: { price: number }; qty: number }): number {
  const price = item.product!.price;
  return price * item.qty;
}
`;
const FIX = `--- a/src/cart/total.ts
+++ b/src/cart/total.ts
@@ -1,4 +1,4 @@
 export function lineTotal(item: { product?: { price: number }; qty: number }): number {
-  const price = item.product!.price;
+  const price = item.product?.price ?? 0;
   return price * item.qty;
 }
`;
const FIXED_TS = TOTAL_TS.replace('item.product!.price', 'item.product?.price ?? 0');
/** A fix written against code the repository does not have. */
const STALE_FIX = `--- a/src/cart/total.ts
+++ b/src/cart/total.ts
@@ -1,2 +1,2 @@
-export function lineTotal(line: CartLine): number {
+export function lineTotal(line?: CartLine): number {
   return line.price * line.qty;
`;

const RESULT: AnalysisResult = {
  root_cause: 'lineTotal reads the price of an item without a product.',
  confidence: 0.8,
  locations: [{ file: 'src/cart/total.ts', line: 2 }],
  diff: FIX,
  diff_applies: true,
  explanation: 'Items whose product was removed have none.',
};

/** The shop page and a click on its button, the second before the error. */
const REPLAY: RrwebEvent[][] = [
  pageLoad('http://shop.test/cart', T - 5_000, el(4, 'button', {}, txt(5, 'Checkout'))),
  [click(4, T - 1_000)],
];

function errorLog(sessionId: string, message: string): LogItem {
  const info = describeException(new TypeError(message));
  return {
    kind: 'log',
    timeMs: T,
    level: 'error',
    body: exceptionBody(info),
    sessionId,
    attributes: { ...exceptionAttributes(info), 'session.id': sessionId },
  };
}

type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };
type PullRequestAnswer = {
  repository: string;
  number: number;
  url: string;
  branch: string;
  commit_sha: string;
  created: boolean;
};

describe.each(kinds)('fix pull requests on %s', (kind) => {
  let t: TestServer;
  let github: FakeGithub;
  let releaseSha: string;
  let headSha: string;
  const issueIds = new Map<string, string>();
  const clock = { now: () => T + 60_000 };

  const call = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (res.status === 204 ? undefined : await res.json()) as T };
  };
  const connect = (body: Record<string, unknown>) =>
    call<ErrorBody & Record<string, unknown>>('PUT', '/apps/web-app/repository', body);
  const openPullRequest = (message: string) =>
    call<PullRequestAnswer & ErrorBody>('POST', `/issues/${issueIds.get(message)!}/pull-request`);
  const ingest = async (path: string, body: string) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [API_KEY_HEADER]: t.ingestKey },
      body,
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const analysed = async (message: string, diff: string) => {
    const db = t.server.database.db;
    const issueId = issueIds.get(message)!;
    const { view } = await queueAnalysis(db, {
      projectId: t.projectId,
      issueId,
      mode: 'model',
      model: 'test-model',
      requestedBy: 'key:test',
      nowMs: T,
      staleBeforeMs: 0,
    });
    await finishAnalysis(db, view.id, { state: 'done', result: { ...RESULT, diff }, sent: null, usage: null }, T + 1);
  };
  /** Lines the server logged. */
  const serverLog: string[] = [];
  /** What the server wrote to GitHub: every request but reads. */
  const writes = () => github.requests.filter((r) => r.method !== 'GET');

  beforeAll(async () => {
    const app = { id: APP_ID, publicKey: APP_KEY.publicKey, installations: [INSTALLATION_ID] };
    github = await startFakeGithub({
      files: { 'web/src/cart/total.ts': TOTAL_TS, 'README.md': '# Shop\n' },
      tokens: [TOKEN],
      app,
    });
    releaseSha = github.branch('main')!;
    // A later commit on the default branch that leaves the patched file alone: the fix branch starts from it.
    headSha = github.push({ 'README.md': '# Shop\n\nNow with coupons.\n' });

    t = await startTestServer(kind, {
      clock,
      detection: false,
      secretKey: 's'.repeat(40),
      log: (line) => serverLog.push(line),
    });
    const service = { 'service.name': 'web-app', 'service.version': releaseSha };
    for (const [seq, events] of REPLAY.entries()) {
      const payload = eventsJson(events.map((e) => JSON.stringify(e)));
      await ingest(
        INGEST_PATHS.replayChunk,
        chunkBody(
          'web-app',
          { sessionId: 's-cart', replayId: 'r-cart', nextSeq: seq + 1 },
          seq,
          events.map((e) => e.timestamp),
          payload,
        ),
      );
    }
    await ingest(
      INGEST_PATHS.logs,
      ENCODE_BODY.logs(
        [
          errorLog('s-cart', PRICE_ERROR),
          errorLog('s-qty', QTY_ERROR),
          errorLog('s-stock', STOCK_ERROR),
          errorLog('s-coupon', COUPON_ERROR),
        ],
        service,
      ),
    );
    await issueDetector(t, clock).runOnce();
    const { body } = await call<IssuePage>('GET', '/issues');
    for (const issue of body.data) issueIds.set(issue.message, issue.id);
    expect([...issueIds.keys()].sort()).toEqual([PRICE_ERROR, QTY_ERROR, STOCK_ERROR, COUPON_ERROR].sort());
  });
  afterAll(async () => {
    await t?.close();
    await github?.close();
  });

  it('refuses a bad connection with a 400 naming the field, and changes nothing', async () => {
    const bad = async (body: Record<string, unknown>, field: string, code = 'invalid_request') => {
      const res = await connect(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, details: { field } });
    };
    await bad({ repo: 'shop', token: TOKEN }, 'owner');
    await bad({ owner: 'acme', repo: 'shop/../x', token: TOKEN }, 'repo');
    await bad({ owner: 'acme', repo: 'shop' }, 'token');
    await bad({ owner: 'acme', repo: 'shop', token: TOKEN, api_url: 'ftp://github.example' }, 'api_url');
    await bad({ owner: 'acme', repo: 'shop', token: TOKEN, directory: '../web' }, 'directory');
    await bad({ owner: 'acme', repo: 'shop', token: TOKEN, branch: 'main' }, 'branch');
    await bad({ owner: 'acme', repo: 'shop', token: TOKEN, app_id: 1 }, 'app_id');
    const app = {
      owner: 'acme',
      repo: 'shop',
      app_id: APP_ID,
      installation_id: INSTALLATION_ID,
      private_key: APP_KEY.privateKey,
    };
    await bad({ ...app, app_id: 0 }, 'app_id');
    await bad({ ...app, installation_id: '7890' }, 'installation_id');
    await bad({ ...app, private_key: undefined }, 'private_key');
    await bad(
      { ...app, private_key: '-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----' },
      'private_key',
    );
    await bad({ ...app, private_key: APP_KEY.publicKey }, 'private_key');
    const ecKey = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    await bad({ ...app, private_key: ecKey }, 'private_key');
    expect((await connect({ ...app, private_key: ecKey })).body.error.message).toContain('PEM RSA private key');
    expect((await call('GET', '/apps/web-app/repository')).status).toBe(404);
    expect(
      (await call('PUT', '/apps/no-such-app/repository', { owner: 'acme', repo: 'shop', token: TOKEN })).status,
    ).toBe(404);
  });

  it('answers 409 for an issue whose app has no repository', async () => {
    await analysed(PRICE_ERROR, FIX);
    const res = await openPullRequest(PRICE_ERROR);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('repository_not_connected');
    expect(github.requests).toHaveLength(0);
  });

  it('connects a repository with its token sealed: not stored in clear, never returned', async () => {
    const put = await connect({
      owner: 'acme',
      repo: 'shop',
      token: TOKEN,
      api_url: `${github.url}/`,
      directory: 'web',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const expected = {
      app: 'web-app',
      owner: 'acme',
      repo: 'shop',
      api_url: github.url,
      directory: 'web',
      auth: 'token',
    };
    expect(put.body).toEqual(expected);
    const got = await call<Record<string, unknown>>('GET', '/apps/web-app/repository');
    expect(got.body).toEqual(expected);
    const rows = await t.server.database.db
      .withTables<{ repositories: { secrets: string } }>()
      .selectFrom('repositories')
      .select('secrets')
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secrets).toMatch(/^v1\./);
    expect(rows[0]!.secrets).not.toContain(TOKEN);
    expect(JSON.stringify(rows)).not.toContain('fakeToken');
  });

  it('opens the pull request: patched file and reproduction test in one commit on a branch from the default head, linked body', async () => {
    const issueId = issueIds.get(PRICE_ERROR)!;
    const res = await openPullRequest(PRICE_ERROR);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const branch = `svc/fix-${issueId}`;
    const opened = {
      repository: 'acme/shop',
      number: 1,
      url: `${github.url}/acme/shop/pull/1`,
      branch,
      commit_sha: github.branch(branch),
    };
    expect(res.body).toEqual({ ...opened, created: true });
    expect((await call('GET', `/issues/${issueId}/pull-request`)).body).toEqual({
      ...opened,
      recorded_at: new Date(clock.now()).toISOString(),
    });

    const test = (await reproductionTest(t.server.database.db, { projectId: t.projectId, issueId }))!;
    expect(test.sessionId).toBe('s-cart');
    const commit = github.commit(res.body.commit_sha);
    expect(commit.parents).toEqual([headSha]);
    expect(github.files(branch)).toEqual({
      'web/src/cart/total.ts': FIXED_TS,
      'README.md': '# Shop\n\nNow with coupons.\n',
      [`web/${test.path}`]: test.content,
    });
    // The default branch is where it was; nothing but the new branch was written.
    expect(github.branch('main')).toBe(headSha);
    expect(
      writes()
        .filter((r) => r.path.includes('/git/refs'))
        .map((r) => r.body?.ref),
    ).toEqual([`refs/heads/${branch}`]);
    expect(github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    // Every GitHub call is in the server log with its answer and duration.
    expect(serverLog.filter((line) => line.startsWith('github acme/shop: ')).length).toBeGreaterThanOrEqual(
      github.requests.length,
    );
    expect(serverLog).toContainEqual(
      expect.stringMatching(/^github acme\/shop: POST \/repos\/\{owner\}\/\{repo\}\/pulls answered 201 in \d+ ms$/),
    );

    const pull = github.pulls[0]!;
    expect(pull).toMatchObject({ title: `Fix TypeError: ${PRICE_ERROR}`, head: branch, base: 'main', state: 'open' });
    expect(pull.body).toContain('lineTotal reads the price of an item without a product.');
    expect(pull.body).toMatch(
      new RegExp(`\\[Issue\\]\\(${t.server.publicUrl}/issues/${issueId}\\?p=[^&]+&exp=\\d+&sig=[\\w-]+\\)`),
    );
    expect(pull.body).toContain(`[Replay](${t.server.publicUrl}/session/s-cart)`);
    expect(pull.body).toContain(`[Evidence](${t.server.publicUrl}/control-plane/issues/${issueId}/analysis)`);
    expect(pull.body).toContain('Incident: none');
    expect(pull.body).toContain(`\`web/${test.path}\` replays session \`s-cart\``);
    expect(pull.body).toContain(`Branched from \`main\` at ${headSha.slice(0, 12)}`);
  });

  it('returns the open pull request on a second request, creating nothing', async () => {
    const before = writes().length;
    const res = await openPullRequest(PRICE_ERROR);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ number: 1, branch: `svc/fix-${issueIds.get(PRICE_ERROR)!}`, created: false });
    expect(writes()).toHaveLength(before);
    expect(github.pulls).toHaveLength(1);
  });

  it('answers 409 patch_not_applicable for a diff that does not apply at the release, and writes nothing', async () => {
    await analysed(QTY_ERROR, STALE_FIX);
    const before = writes().length;
    const res = await openPullRequest(QTY_ERROR);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('patch_not_applicable');
    expect(res.body.error.message).toContain('src/cart/total.ts');
    expect(writes()).toHaveLength(before);
    expect(github.branch(`svc/fix-${issueIds.get(QTY_ERROR)!}`)).toBeUndefined();
    // None opened is an answer (null); an id that is no issue is the 404.
    expect(await call('GET', `/issues/${issueIds.get(QTY_ERROR)!}/pull-request`)).toMatchObject({
      status: 200,
      body: null,
    });
    expect((await call('GET', '/issues/0123456789abcdef/pull-request')).status).toBe(404);
  });

  it('deletes the branch when GitHub refuses the pull request, then opens it on the next request', async () => {
    await analysed(STOCK_ERROR, FIX);
    const branch = `svc/fix-${issueIds.get(STOCK_ERROR)!}`;
    github.inject('POST', /\/pulls$/, { answer: { status: 422, body: { message: 'Validation Failed' } } });
    const refused = await openPullRequest(STOCK_ERROR);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ code: 'github_refused' });
    expect(github.requests.some((r) => r.method === 'DELETE' && r.path.endsWith(`/git/refs/heads/${branch}`))).toBe(
      true,
    );
    expect(github.branch(branch)).toBeUndefined();
    expect(github.pulls).toHaveLength(1);

    const retried = await openPullRequest(STOCK_ERROR);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(github.pulls[1]).toMatchObject({ head: branch, state: 'open' });
    // No affected session of this issue has a replay: the patch alone, and the body says why.
    expect(Object.keys(github.files(branch)).sort()).toEqual(['README.md', 'web/src/cart/total.ts']);
    expect(github.pulls[1]!.body).toContain('carries no reproduction test');
  });

  it('branches from the release commit when the default branch has changed a file the patch touches, and says so', async () => {
    await analysed(COUPON_ERROR, FIX);
    const changed = `${TOTAL_TS}\nexport const VERSION = 2;\n`;
    const head = github.push({ 'web/src/cart/total.ts': changed });
    const res = await openPullRequest(COUPON_ERROR);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(github.commit(res.body.commit_sha).parents).toEqual([releaseSha]);
    expect(github.files(res.body.branch)).toEqual({ 'web/src/cart/total.ts': FIXED_TS, 'README.md': '# Shop\n' });
    expect(github.pulls.at(-1)!.body).toContain(
      `Branched from the release's commit ${releaseSha.slice(0, 12)}, not from \`main\`: \`main\` has changed \`web/src/cart/total.ts\` since.`,
    );
    expect(github.branch('main')).toBe(head);
  });

  it('answers 503 with Retry-After when GitHub rate-limits, with a 429 or a 403', async () => {
    github.inject('GET', /\/pulls$/, {
      answer: { status: 429, headers: { 'retry-after': '30' }, body: { message: 'API rate limit exceeded' } },
    });
    const limited = await openPullRequest(PRICE_ERROR);
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.body.error.code).toBe('github_rate_limited');

    const reset = Math.floor(Date.now() / 1000) + 120;
    github.inject('GET', /\/pulls$/, {
      answer: {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
        body: { message: 'API rate limit exceeded' },
      },
    });
    const exhausted = await openPullRequest(PRICE_ERROR);
    expect(exhausted.status).toBe(503);
    expect(Number(exhausted.headers.get('retry-after'))).toBeGreaterThan(100);
  });

  it('answers 504 when GitHub does not answer in time, before writing anything', async () => {
    const connection = {
      owner: 'acme',
      repo: 'shop',
      apiUrl: github.url,
      directory: 'web',
      auth: { kind: 'token' as const, secrets: { token: TOKEN } },
    };
    const target = { octokit: await githubClient(connection, () => undefined, 200), owner: 'acme', repo: 'shop' };
    github.inject('GET', /\/pulls$/, { delayMs: 5_000 });
    const before = writes().length;
    const fix = {
      issue: { id: 'slow', type: 'TypeError', message: 'slow', app: 'web-app' },
      diff: FIX,
      release: null,
      test: null,
      mode: 'model' as const,
      result: RESULT,
      links: { issue: '', incident: null, replay: null, evidence: '' },
    };
    const failure = await openFixPullRequest(target, connection, fix, () => undefined).catch((err: unknown) =>
      githubFailure(err, 'testing', Date.now(), 200),
    );
    expect(refusalOf(failure)).toMatchObject({ status: 504, code: 'github_timeout' });
    expect(writes()).toHaveLength(before);
  });

  it('disconnects the repository', async () => {
    expect((await call('DELETE', '/apps/web-app/repository')).status).toBe(204);
    expect((await call('GET', '/apps/web-app/repository')).status).toBe(404);
    expect((await call('DELETE', '/apps/web-app/repository')).status).toBe(404);
  });

  it('answers 502 github_unauthorized when GitHub does not know the token', async () => {
    expect(
      (await connect({ owner: 'acme', repo: 'shop', token: 'ghp_revokedToken', api_url: github.url, directory: 'web' }))
        .status,
    ).toBe(200);
    const before = writes().length;
    const refused = await openPullRequest(PRICE_ERROR);
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('github_unauthorized');
    expect(writes()).toHaveLength(before);
  });

  describe('as a GitHub App installation', () => {
    const appConnection = (installationId: number) => ({
      owner: 'acme',
      repo: 'shop',
      api_url: github.url,
      directory: 'web',
      app_id: APP_ID,
      installation_id: installationId,
      private_key: APP_KEY.privateKey,
    });
    const repositoryWrites = () => writes().filter((r) => r.path.startsWith('/repos/'));
    const keyBody = APP_KEY.privateKey.split('\n')[1]!;

    it('answers 502 github_app_auth_failed naming an installation GitHub does not know, creating nothing', async () => {
      expect((await connect(appConnection(404_404))).status).toBe(200);
      await analysed(QTY_ERROR, FIX);
      const before = repositoryWrites().length;
      const refused = await openPullRequest(QTY_ERROR);
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatchObject({
        code: 'github_app_auth_failed',
        details: { github_status: 404, installation_id: 404_404 },
      });
      expect(refused.body.error.message).toContain('installation 404404');
      expect(github.requests.at(-1)!.path).toBe('/app/installations/404404/access_tokens');
      expect(repositoryWrites()).toHaveLength(before);
      expect(github.branch(`svc/fix-${issueIds.get(QTY_ERROR)!}`)).toBeUndefined();
      expect(await call('GET', `/issues/${issueIds.get(QTY_ERROR)!}/pull-request`)).toMatchObject({
        status: 200,
        body: null,
      });
    });

    it("answers 502 github_app_auth_failed when the private key is not the App's: GitHub refuses its JWT", async () => {
      const otherKey = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey;
      expect((await connect({ ...appConnection(INSTALLATION_ID), private_key: otherKey })).status).toBe(200);
      const minted = github.installationTokens.length;
      const refused = await openPullRequest(QTY_ERROR);
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatchObject({
        code: 'github_app_auth_failed',
        details: { github_status: 401, installation_id: INSTALLATION_ID },
      });
      expect(github.installationTokens).toHaveLength(minted);
    });

    it('connects with the private key sealed: not stored in clear, never returned', async () => {
      const put = await connect(appConnection(INSTALLATION_ID));
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const expected = {
        app: 'web-app',
        owner: 'acme',
        repo: 'shop',
        api_url: github.url,
        directory: 'web',
        auth: 'app',
      };
      expect(put.body).toEqual(expected);
      expect((await call('GET', '/apps/web-app/repository')).body).toEqual(expected);
      const rows = await t.server.database.db
        .withTables<{ repositories: { secrets: string } }>()
        .selectFrom('repositories')
        .selectAll()
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.secrets).toMatch(/^v1\./);
      expect(JSON.stringify(rows)).not.toContain('PRIVATE KEY');
      expect(JSON.stringify(rows)).not.toContain(keyBody);
    });

    it('opens the pull request with an installation token minted from a valid JWT, and that token on every repository call', async () => {
      const first = github.requests.length;
      const res = await openPullRequest(QTY_ERROR);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(github.files(res.body.branch)['web/src/cart/total.ts']).toBe(FIXED_TS);
      expect(github.pulls.at(-1)).toMatchObject({ head: res.body.branch, state: 'open' });

      const [minting, ...repositoryCalls] = github.requests.slice(first);
      const minted = github.installationTokens.at(-1)!;
      expect(minting).toMatchObject({ method: 'POST', path: `/app/installations/${INSTALLATION_ID}/access_tokens` });
      expect(minting!.authorization).toBe(`bearer ${minted.jwt}`);
      expect(minted).toMatchObject({ installationId: INSTALLATION_ID, claims: { iss: APP_ID } });
      expect(minted.claims.exp - minted.claims.iat).toBeLessThanOrEqual(600);
      expect(repositoryCalls.length).toBeGreaterThan(5);
      for (const request of repositoryCalls) {
        expect(request.path).toMatch(/^\/repos\/acme\/shop(\/|$)/);
        expect(request.authorization).toBe(`token ${minted.token}`);
      }
    });
  });
});
