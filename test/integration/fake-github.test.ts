import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, type FakeGithub } from '../support/fake-github';

/**
 * The GitHub fake refuses what GitHub's REST API refuses, with GitHub's status and error shape (422, `message`,
 * `documentation_url`), so a production client that sends a short ref name or a tree entry without its mode and type
 * fails here as it would against GitHub.
 */
let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub({ files: { 'README.md': 'shop\n' } });
});
afterAll(() => github.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${github.url}/repos/${github.owner}/${github.repo}${path}`, {
    method: 'POST',
    headers: { authorization: 'token ghp_any', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { message: string; documentation_url?: string } };
};
const refused = (message: string | RegExp) => ({
  status: 422,
  body: { message: expect.stringMatching(message), documentation_url: expect.stringContaining('docs.github.com') },
});

describe('the GitHub fake, as strict as GitHub', () => {
  it('creates a ref only from its fully qualified name: refs/ and at least two slashes', async () => {
    const sha = github.branch(github.defaultBranch)!;
    for (const ref of ['heads/fix', 'refs/fix', 'fix', 'refs/heads/'])
      expect(await post('/git/refs', { ref, sha }), ref).toEqual(
        refused('Reference name must contain at least three slash-separated components.'),
      );
    expect(await post('/git/refs', { sha }), 'no ref').toEqual(refused(/"ref" wasn't supplied/));
    expect(github.branch('fix')).toBeUndefined();
    expect(await post('/git/refs', { ref: 'refs/heads/fix', sha })).toMatchObject({
      status: 201,
      body: { ref: 'refs/heads/fix' },
    });
    expect(await post('/git/refs', { ref: 'refs/heads/svc/fix-1', sha })).toMatchObject({ status: 201 });
    expect(github.branch('svc/fix-1')).toBe(sha);
  });

  it('takes tree entries only with a mode and the type that goes with it', async () => {
    const { sha: blob } = (await post('/git/blobs', { content: 'fixed\n', encoding: 'utf-8' })).body as unknown as {
      sha: string;
    };
    const tree = (entry: Record<string, unknown>) =>
      post('/git/trees', { tree: [{ path: 'a.ts', sha: blob, ...entry }] });
    expect(await tree({ type: 'blob' }), 'no mode').toEqual(refused(/"mode" wasn't supplied/));
    expect(await tree({ mode: '100644' }), 'no type').toEqual(refused(/"type" wasn't supplied/));
    expect(await tree({ mode: '644', type: 'blob' }), 'unknown mode').toEqual(refused(/properties\/mode/));
    expect(await tree({ mode: '100644', type: 'file' }), 'unknown type').toEqual(refused(/properties\/type/));
    expect(await tree({ mode: '040000', type: 'blob' }), 'a directory mode on a blob').toEqual(
      refused('Invalid tree info'),
    );
    expect(await tree({ mode: '100644', type: 'blob' })).toMatchObject({ status: 201 });
    expect(await tree({ mode: '100755', type: 'blob', sha: null })).toMatchObject({ status: 201 });
  });
});
