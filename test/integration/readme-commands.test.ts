/**
 * Every shell block of the README and of the getting-started pages runs as written, in order, as a new user types it
 * on a fresh clone (CI runs this on one: .ci/run): each block in a bash of its own started at the checkout's root,
 * one command at a time (test/support/shell-session.ts), each expected to exit 0. `npm install && npm start` starts the
 * server the later blocks talk to; the test waits for its banner and checks each address it prints answers.
 *
 * What a reader fills in is filled in here: `<checkout>` this checkout, `<your app>` a fresh app in a temporary folder
 * (whose `npm run build` writes a script and its source map under build/), `<control key>` the printed key, `<key id>`
 * and `<channel id>` what an earlier command printed, and `http://127.0.0.1:4318` the server's address (it listens
 * on a free port: SVC_PORT). Its data goes to a database of its own (SVC_DATABASE_URL), curl fails on an HTTP error
 * (a .curlrc with --fail-with-body), and npx never fetches a missing command. A command already run in the same
 * folder (the docs repeat the README's install lines) is not run twice. Blocks that cannot run here say why in the
 * page (`<!-- readme-test: not run: … -->`); the list is checked below and kept to two.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../build/stale';
import { childEnv } from '../support/child-env';
import { commandsOf, shellBlocks, type ShellBlock } from '../support/doc-blocks';
import { freePort, startServerProcess, type RunningApp } from '../support/examples';
import { withPackageLocks } from '../support/lock';
import { startShell } from '../support/shell-session';
import { eventually } from '../support/until';

const DOCS = ['README.md', 'docs/sdk.md', 'docs/playwright.md'];
const CHECKOUT = ROOT.replace(/\/$/, '');
const COMMAND_TIMEOUT_MS = 240_000;

const work = mkdtempSync(join(tmpdir(), 'svc-readme-'));
const app = join(work, 'my-app');
mkdirSync(app);
writeFileSync(
  join(app, 'package.json'),
  JSON.stringify({ name: 'my-app', version: '1.0.0', private: true, scripts: { build: 'node build.mjs' } }, null, 2),
);
// A build that writes what a bundler writes: a minified script naming its source map, and the map.
writeFileSync(
  join(app, 'build.mjs'),
  `import { mkdirSync, writeFileSync } from 'node:fs';
mkdirSync('build/static/js', { recursive: true });
writeFileSync('build/static/js/main.js', 'throw new Error("boom");\\n//# sourceMappingURL=main.js.map\\n');
writeFileSync('build/static/js/main.js.map', JSON.stringify({ version: 3, file: 'main.js', sources: ['src/main.js'], sourcesContent: ['throw new Error("boom");\\n'], names: [], mappings: 'AAAA' }));
`,
);
writeFileSync(join(work, '.curlrc'), '--fail-with-body\n--silent\n--show-error\n');

const env = childEnv({
  SVC_DATABASE_URL: join(work, 'data', 'svc.db'),
  CURL_HOME: work,
  npm_config_yes: 'false',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});

interface Server extends RunningApp {
  url: string;
  ingestKey: string;
  controlKey: string;
}
let server: Server | undefined;
/** What the commands run so far printed, newest last. */
const printed: string[] = [];
/** Commands that passed, with the folder they ran in. */
const passed = new Set<string>();

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const lastMatch = (pattern: RegExp, what: string): string => {
  for (const output of [...printed].reverse()) {
    const found = [...output.matchAll(pattern)].pop()?.[1];
    if (found) return found;
  }
  throw new Error(`no earlier command printed ${what}`);
};
const running = (): Server => {
  if (!server) throw new Error('no server: the README starts it with `npm start` before any block that needs it');
  return server;
};

const PLACEHOLDERS: Record<string, () => string> = {
  '<checkout>': () => CHECKOUT,
  '<your app>': () => app,
  '<control key>': () => running().controlKey,
  '<ingest key>': () => running().ingestKey,
  '<key id>': () => lastMatch(/^created \w+ key (\S+)/gm, 'a key id'),
  '<channel id>': () => lastMatch(/"id":"(ch_\w+)"/g, 'a channel id'),
};

/** The command with what the reader fills in filled in; an unknown placeholder fails the test, naming it. */
function filledIn(command: string): string {
  let filled = server ? command.replaceAll('http://127.0.0.1:4318', server.url) : command;
  for (const [placeholder, value] of Object.entries(PLACEHOLDERS))
    if (filled.includes(placeholder)) filled = filled.replaceAll(placeholder, value());
  const unknown = /<[a-z][a-z ]*>/.exec(filled);
  if (unknown)
    throw new Error(`\`${command}\` has a placeholder this test does not know, ${unknown[0]}: add it to PLACEHOLDERS`);
  return filled;
}

/** `… && npm start`: the server, started as the reader starts it, once its banner is printed and every address in it answers. */
async function startReadmeServer(command: string): Promise<Server> {
  const port = await freePort();
  const started = await startServerProcess({
    cwd: ROOT,
    command: 'bash',
    args: ['-c', command],
    env: { ...env, SVC_PORT: String(port) },
    port,
    readyPaths: ['/healthz'],
  });
  try {
    const banner = await eventually('the banner of npm start', async () =>
      /control key:\s+\S+\n/.test(started.output()) ? started.output() : undefined,
    );
    const field = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1];
    for (const label of ['API', 'demo', 'console']) {
      const address = field(label);
      expect(address, `${label}: in the banner\n${banner}`).toBeDefined();
      expect((await fetch(address!)).status, `${label}: ${address}`).toBe(200);
    }
    return {
      ...started,
      url: field('ingest URL')!,
      ingestKey: field('ingest key')!,
      controlKey: field('control key')!,
    };
  } catch (error) {
    await started.stop();
    throw error;
  }
}

async function runBlock(block: ShellBlock): Promise<void> {
  const shell = startShell(ROOT, env);
  try {
    for (const written of commandsOf(block.code)) {
      const command = filledIn(written);
      if (/(^|&&\s*)npm start$/.test(command)) {
        server = await startReadmeServer(command);
        continue;
      }
      const here = `${(await shell.run('pwd', 5_000)).output.trim()}\n${command}`;
      if (passed.has(here)) continue;
      const result = await (/\bnpm pack\b/.test(command)
        ? withPackageLocks(() => shell.run(command, COMMAND_TIMEOUT_MS))
        : shell.run(command, COMMAND_TIMEOUT_MS));
      printed.push(result.output);
      expect(result.status, `${block.doc}:${block.line}: ${written}\n${result.output}`).toBe(0);
      passed.add(here);
    }
  } finally {
    shell.close();
  }
}

const blocks = DOCS.flatMap(shellBlocks);
const title = (block: ShellBlock) => `${block.doc}:${block.line}: ${commandsOf(block.code)[0] ?? '(empty)'}`;

describe('the shell blocks of the README and the getting-started pages', () => {
  it('leaves out only the blocks that cannot run here, each saying why', () => {
    // By the block's first command's first two words.
    expect(
      blocks
        .filter((block) => block.notRun)
        .map((block) => [block.doc, commandsOf(block.code)[0]?.split(/\s+/).slice(0, 2).join(' ')]),
    ).toEqual([
      ['README.md', 'npm test'],
      ['README.md', 'npx svc-zero'],
    ]);
    // `npm test` is what .ci/run runs: the README's test command and CI's are one.
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test \|\| status=\$\?$/m);
    expect(commandsOf(blocks[0]!.code)).toEqual(['npm install && npm start']);
  });

  for (const block of blocks) {
    if (block.notRun) it.skip(`${title(block)} (not run: ${block.notRun})`, () => undefined);
    else it(title(block), () => runBlock(block), COMMAND_TIMEOUT_MS * 3);
  }

  it('left the app with the packages installed from their tarballs, the SDK importable, and its source maps uploaded and deleted', async () => {
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<
      'dependencies' | 'devDependencies',
      Record<string, string>
    >;
    // npm writes the tarball's path relative to the app.
    const tarball = (spec: string | undefined) => spec && resolve(app, spec.replace(/^file:/, ''));
    expect(tarball(pkg.dependencies['@svc/browser'])).toBe(join(CHECKOUT, 'svc-browser-0.1.0.tgz'));
    expect(tarball(pkg.devDependencies['@svc/build'])).toBe(join(CHECKOUT, 'svc-build-0.1.0.tgz'));
    expect(tarball(pkg.devDependencies['@svc/playwright'])).toBe(join(CHECKOUT, 'svc-playwright-0.1.0.tgz'));
    const imported = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const sdk = await import('@svc/browser'); console.log(typeof sdk.initBrowserSDK)"],
      { cwd: app, encoding: 'utf8' },
    );
    expect(imported.trim()).toBe('function');
    expect(readdirSync(join(app, 'build/static/js'))).toEqual(['main.js']);
    const maps = await fetch(`${running().url}/control-plane/sourcemaps`, {
      headers: { authorization: `Bearer ${running().controlKey}` },
    });
    expect(JSON.stringify(await maps.json())).toContain('main.js');
  });
});
