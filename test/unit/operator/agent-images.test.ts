/**
 * The image build files (operator/images/) against the layout the mutation relies on: no Docker engine runs here, so
 * this reads each Dockerfile and checks that its final stage can run the init container's `cp`, holds every file the
 * markers name under AGENT_IMAGE_DIR, runs as a non-root uid, and that the build context lets through what it
 * copies. The Node agent's image pins the same OpenTelemetry versions the integration test runs against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VALUES, renderManifests } from '../../../operator/src/manifests/index.js';
import {
  AGENT_IMAGE_DIR,
  AGENT_MOUNT_PATH,
  JAVA_AGENT_JARS,
  NODE_AGENT_ENTRY,
  PYTHON_AGENT_PATHS,
} from '../../../operator/src/markers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const IMAGES = join(ROOT, 'operator/images');

interface Instruction {
  op: string;
  args: string;
}

/** Instructions of each stage (continuation lines joined, comments dropped), split at FROM. */
function stages(dockerfile: string): Instruction[][] {
  const lines = dockerfile.replace(/\\\n/g, ' ').split('\n');
  const result: Instruction[][] = [];
  for (const line of lines) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(text) ?? [];
    if (op.toUpperCase() === 'FROM') result.push([]);
    result.at(-1)?.push({ op: op.toUpperCase(), args });
  }
  return result;
}

function read(path: string): string {
  return readFileSync(join(IMAGES, path), 'utf8');
}

/** Where the image holds a file the app container finds under AGENT_MOUNT_PATH (init command: cp -R AGENT_IMAGE_DIR/. AGENT_MOUNT_PATH/). */
const inImage = (path: string) => path.replace(AGENT_MOUNT_PATH, AGENT_IMAGE_DIR);

/** Paths (no --from) the Dockerfile COPYs from its context. */
function contextSources(all: Instruction[][]): string[] {
  return all
    .flat()
    .filter((i) => (i.op === 'COPY' || i.op === 'ADD') && !/--from=/.test(i.args))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'))
        .slice(0, -1),
    );
}

/** The context paths a `*` + `!path` allowlist ignore file lets through. */
function allowed(ignoreFile: string, source: string): boolean {
  const allow = ignoreFile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1).replace(/\/$/, ''));
  const path = source.replace(/\/$/, '');
  return allow.some((a) => path === a || path.startsWith(`${a}/`));
}

const AGENT_IMAGES = [
  { lang: 'nodejs', files: [NODE_AGENT_ENTRY] },
  { lang: 'java', files: [...JAVA_AGENT_JARS] },
  { lang: 'python', files: [...PYTHON_AGENT_PATHS] },
] as const;

describe.each(AGENT_IMAGES)('agent image $lang', ({ lang, files }) => {
  const dockerfile = read(`${lang}/Dockerfile`);
  const all = stages(dockerfile);
  const final = all.at(-1)!;

  it('ends in busybox (the init container runs `cp`) holding AGENT_IMAGE_DIR from the build stage', () => {
    expect(final[0]?.args).toMatch(/^busybox(:[\w.-]+)?$/);
    expect(final.filter((i) => i.op === 'COPY').map((i) => i.args)).toEqual([
      `--from=build ${AGENT_IMAGE_DIR} ${AGENT_IMAGE_DIR}`,
    ]);
    expect(
      final.some((i) => i.op === 'RUN'),
      'nothing runs in the final stage: it only carries files',
    ).toBe(false);
  });

  it('puts every file the mutation points at under AGENT_IMAGE_DIR/<lang>/', () => {
    const build = all.find((stage) => / AS build$/i.test(`FROM ${stage[0]?.args}`))!;
    const text = build.map((i) => `${i.op} ${i.args}`).join('\n');
    for (const file of files) {
      expect(file.startsWith(`${AGENT_MOUNT_PATH}/`)).toBe(true);
      // Written by the build stage: as a COPY/RUN destination, pip's --target, or build.sh's output.
      expect(text, `${inImage(file)} in the build stage`).toMatch(
        new RegExp(`${inImage(file).replace(/[.]/g, '\\.')}(/|\\s|$)`),
      );
    }
    expect(text).toContain(`chmod -R go+rX ${AGENT_IMAGE_DIR}`);
  });

  it('runs as a numeric non-root user (runAsNonRoot admits it)', () => {
    const user = final.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it('its build context (operator/, allowlisted by Dockerfile.dockerignore) lets through everything it copies', () => {
    const ignore = read(`${lang}/Dockerfile.dockerignore`);
    expect(contextSources(all).length).toBeGreaterThan(0);
    for (const source of contextSources(all))
      expect(allowed(ignore, source), `${source} is excluded from the context`).toBe(true);
  });
});

describe('Node.js agent image dependencies', () => {
  const image = JSON.parse(read('nodejs/package.json')) as { dependencies: Record<string, string> };
  const register = readFileSync(join(ROOT, 'operator/agents/node/register.ts'), 'utf8');

  it('installs every package register.cjs loads', () => {
    const loaded = [...register.matchAll(/require\('([^']+)'\)/g)]
      .map((m) => m[1]!)
      .filter((name) => !name.startsWith('node:'));
    expect(loaded.length).toBeGreaterThan(0);
    for (const name of loaded) expect(Object.keys(image.dependencies), name).toContain(name);
  });

  it('pins exactly the versions the repository installs (the ones test/integration/operator/node-agent.test.ts runs)', () => {
    for (const [name, version] of Object.entries(image.dependencies)) {
      const installed = (
        JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
      ).version;
      expect(version, name).toBe(installed);
    }
  });
});

describe('Python agent requirements', () => {
  it('pins every package exactly, from one release train', () => {
    const lines = readFileSync(join(ROOT, 'operator/agents/python/requirements.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^opentelemetry-[a-z0-9-]+==\d+\.\d+(\.\d+|b\d+)$/);
    const versions = lines.map((l) => l.split('==')[1]!);
    expect(new Set(versions.filter((v) => v.includes('b'))).size, 'one contrib (0.NbM) version').toBe(1);
    expect(new Set(versions.filter((v) => !v.includes('b'))).size, 'one core (1.N.M) version').toBe(1);
  });
});

describe('operator image', () => {
  const all = stages(read('operator/Dockerfile'));
  const final = all.at(-1)!;

  it('runs as the uid the Deployment’s securityContext names, with its entrypoint', () => {
    const deployment = renderManifests(DEFAULT_VALUES).find((o) => o.kind === 'Deployment') as {
      spec: { template: { spec: { securityContext: { runAsUser: number } } } };
    };
    const user = final.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
    expect(user.split(':')[0]).toBe(String(deployment.spec.template.spec.securityContext.runAsUser));
    expect(final.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["node", "operator/dist/main.js"]');
  });

  it('its build context (the repository root, allowlisted) lets through everything it copies', () => {
    const ignore = read('operator/Dockerfile.dockerignore');
    for (const source of contextSources(all))
      expect(allowed(ignore, source), `${source} is excluded from the context`).toBe(true);
  });
});
