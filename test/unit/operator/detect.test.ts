/**
 * Language detection and workload identity (issue 7, docs/zero-mutation.md "Detection"): the explicit markers'
 * order, each heuristic's confidence, how signals combine and conflict, and the names workloads are known by.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  HEURISTIC_CAP,
  normalizeLanguage,
  parseImageReference,
  workloadOf,
  type DetectionInput,
} from '../../../operator/src/detect/index.js';

const container = (fields: Partial<V1Container>): V1Container => ({ name: 'app', ...fields });
const detect = (fields: Partial<V1Container>, extra: Partial<DetectionInput> = {}) =>
  detectLanguage({ workload: 'checkout', container: container(fields), ...extra });

describe('normalizeLanguage', () => {
  it.each([
    ['node', 'nodejs'],
    ['NodeJS', 'nodejs'],
    [' javascript ', 'nodejs'],
    ['js', 'nodejs'],
    ['typescript', 'nodejs'],
    ['java', 'java'],
    ['kotlin', 'java'],
    ['Python', 'python'],
    ['py', 'python'],
    ['golang', 'go'],
    ['go', 'go'],
    ['.NET', 'dotnet'],
    ['csharp', 'dotnet'],
    ['ruby', 'ruby'],
    ['php', 'php'],
  ])('%s → %s', (value, lang) => {
    expect(normalizeLanguage(value)).toBe(lang);
  });

  it.each(['cobol', '', 'nodejs20', 'toString', '__proto__'])('%j names no language', (value) => {
    expect(normalizeLanguage(value)).toBeUndefined();
  });
});

describe('explicit markers', () => {
  const everything = {
    env: [{ name: 'SVC_LANGUAGE', value: 'python' }],
    image: 'node:20',
    command: ['java', '-jar', 'app.jar'],
  };

  it('container env SVC_LANGUAGE comes first, with confidence 1', () => {
    const d = detect(everything, { podLabels: { 'svc.io/language': 'ruby' }, hints: { checkout: 'go' } });
    expect(d).toMatchObject({ lang: 'python', confidence: 1, source: 'env' });
  });

  it('then the pod label svc.io/language', () => {
    const d = detect({ image: 'node:20' }, { podLabels: { 'svc.io/language': 'ruby' }, hints: { checkout: 'go' } });
    expect(d).toMatchObject({ lang: 'ruby', confidence: 1, source: 'label' });
  });

  it('then spec.languageHints for the workload (other workloads do not count)', () => {
    expect(detect({ image: 'node:20' }, { hints: { checkout: 'golang', other: 'java' } })).toMatchObject({
      lang: 'go',
      confidence: 1,
      source: 'hint',
    });
    expect(detect({ image: 'node:20' }, { hints: { other: 'java' } })).toMatchObject({
      lang: 'nodejs',
      source: 'image',
    });
  });

  it('the last SVC_LANGUAGE entry wins, as in Kubernetes; one from valueFrom cannot be read and is passed over', () => {
    expect(
      detect({
        env: [
          { name: 'SVC_LANGUAGE', value: 'java' },
          { name: 'SVC_LANGUAGE', value: 'php' },
        ],
      }),
    ).toMatchObject({ lang: 'php', source: 'env' });
    const fromConfigMap = detect(
      { env: [{ name: 'SVC_LANGUAGE', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }] },
      { podLabels: { 'svc.io/language': 'java' } },
    );
    expect(fromConfigMap).toMatchObject({ lang: 'java', source: 'label' });
  });

  it('a marker naming no known language is ignored and reported, and the next signal decides', () => {
    const d = detect(
      { image: 'python:3.12', env: [{ name: 'SVC_LANGUAGE', value: 'cobol' }] },
      { podLabels: { 'svc.io/language': 'fortran' } },
    );
    expect(d).toMatchObject({ lang: 'python', source: 'image', confidence: 0.7 });
    expect(d.warnings).toEqual([
      'env SVC_LANGUAGE="cobol" names no known language (nodejs, java, python, go, dotnet, ruby, php) and is ignored',
      'label svc.io/language="fortran" names no known language (nodejs, java, python, go, dotnet, ruby, php) and is ignored',
    ]);
  });

  it('an explicit language still gets its framework from the heuristics of that language only', () => {
    expect(
      detect({ image: 'node:20', command: ['next', 'start'] }, { podLabels: { 'svc.io/language': 'node' } }),
    ).toMatchObject({ lang: 'nodejs', framework: 'nextjs' });
    expect(detect({ command: ['python', 'manage.py'] }, { podLabels: { 'svc.io/language': 'java' } })).toMatchObject({
      lang: 'java',
      framework: 'unknown',
    });
  });
});

describe('command heuristics (0.8; a bare script extension 0.7)', () => {
  it.each<[string[] | undefined, string[] | undefined, string, string]>([
    [['node', 'server.js'], undefined, 'nodejs', 'unknown'],
    [['/usr/local/bin/node'], ['dist/main.js'], 'nodejs', 'unknown'],
    [['npm', 'start'], undefined, 'nodejs', 'unknown'],
    [['npx', 'next', 'start'], undefined, 'nodejs', 'nextjs'],
    [['tini', '--'], ['node', 'index.mjs'], 'nodejs', 'unknown'],
    [['sh', '-c', 'exec node server.js'], undefined, 'nodejs', 'unknown'],
    [['java', '-Xmx1g', '-jar', '/app/app.jar'], undefined, 'java', 'unknown'],
    [['java', '-jar', 'quarkus-run.jar'], undefined, 'java', 'quarkus'],
    [['./mvnw', 'spring-boot:run'], undefined, 'java', 'spring-boot'],
    [['catalina.sh', 'run'], undefined, 'java', 'tomcat'],
    [['python3.12', '-m', 'flask', 'run'], undefined, 'python', 'flask'],
    [['gunicorn', 'shop.wsgi:application'], undefined, 'python', 'django'],
    [['uvicorn', 'main:app'], undefined, 'python', 'unknown'],
    [['celery', '-A', 'proj', 'worker'], undefined, 'python', 'celery'],
    [['go', 'run', '.'], undefined, 'go', 'unknown'],
    [['dotnet', 'Shop.dll'], undefined, 'dotnet', 'unknown'],
    [['bundle', 'exec', 'rails', 'server'], undefined, 'ruby', 'rails'],
    [['php-fpm8.2'], undefined, 'php', 'unknown'],
    [['php', 'artisan', 'serve'], undefined, 'php', 'laravel'],
  ])('%j %j → %s (%s)', (command, args, lang, framework) => {
    expect(detect({ image: 'registry.example.com/app:1', command, args })).toMatchObject({
      lang,
      framework,
      confidence: 0.8,
      source: 'command',
    });
  });

  it('a script with a known extension counts a little less than a launcher', () => {
    expect(detect({ command: ['/srv/start.py'] })).toMatchObject({
      lang: 'python',
      confidence: 0.7,
      source: 'command',
    });
    expect(detect({ args: ['app.jar'] })).toMatchObject({ lang: 'java', confidence: 0.7 });
  });

  it('flags, VAR=value words and unknown programs say nothing', () => {
    expect(detect({ command: ['/entrypoint.sh', '--node=3', 'NODE=1'] })).toMatchObject({
      lang: 'unknown',
      confidence: 0,
      source: 'none',
      framework: 'unknown',
    });
  });
});

describe('image heuristics', () => {
  it.each([
    ['node:20-alpine', 'nodejs', 0.7],
    ['docker.io/library/node:22', 'nodejs', 0.7],
    ['cgr.dev/chainguard/node:latest', 'nodejs', 0.7],
    ['gcr.io/distroless/nodejs20-debian12', 'nodejs', 0.7],
    ['registry.access.redhat.com/ubi9/nodejs-20:1', 'nodejs', 0.7],
    ['python:3.12-slim', 'python', 0.7],
    ['bitnami/python:3.11', 'python', 0.7],
    ['eclipse-temurin:21-jre', 'java', 0.7],
    ['amazoncorretto:17', 'java', 0.7],
    ['public.ecr.aws/docker/library/openjdk:17', 'java', 0.7],
    ['gcr.io/distroless/java17-debian12', 'java', 0.7],
    ['golang:1.22', 'go', 0.6],
    ['mcr.microsoft.com/dotnet/aspnet:8.0', 'dotnet', 0.7],
    ['ruby:3.3', 'ruby', 0.7],
    ['php:8.3-fpm', 'php', 0.7],
    ['ghcr.io/acme/checkout-spring:2.1', 'java', 0.6],
    ['acme/orders-django@sha256:0123456789abcdef', 'python', 0.6],
  ])('%s → %s %d', (image, lang, confidence) => {
    expect(detect({ image })).toMatchObject({ lang, confidence, source: 'image' });
  });

  it('frameworks from images: tomcat, aspnet, framework words', () => {
    expect(detect({ image: 'tomcat:10' })).toMatchObject({ lang: 'java', framework: 'tomcat' });
    expect(detect({ image: 'mcr.microsoft.com/dotnet/aspnet:8.0' })).toMatchObject({ framework: 'aspnetcore' });
    expect(detect({ image: 'acme/api-express:1' })).toMatchObject({ lang: 'nodejs', framework: 'express' });
  });

  it.each([
    'calico/node:v3.27.0', // a Go network agent: `node` from an unknown publisher is not Node.js
    'quay.io/prometheus/node-exporter:v1.8.0',
    'registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.10.0',
    'node-registry.example.com/payments:1', // the registry host is never read
    'acme/nodejs-to-python-bridge:1', // contradicting words: no signal
    'registry.example.com/acme/web:python', // the tag is never read
  ])('%s says nothing', (image) => {
    expect(detect({ image })).toMatchObject({ lang: 'unknown', confidence: 0 });
  });

  it('parses references like a container runtime', () => {
    expect(parseImageReference('localhost:5000/team/api:1.2@sha256:abc')).toEqual({
      registry: 'localhost:5000',
      path: 'team/api',
      name: 'api',
      tag: '1.2',
    });
    expect(parseImageReference('docker.io/library/node:20')).toEqual({
      registry: 'docker.io',
      path: 'node',
      name: 'node',
      tag: '20',
    });
    expect(parseImageReference('Bitnami/Python')).toEqual({ path: 'bitnami/python', name: 'python' });
  });
});

describe('environment variable names (0.5, one signal per language)', () => {
  it.each([
    ['NODE_ENV', 'nodejs', 'unknown'],
    ['NEXT_PUBLIC_API', 'nodejs', 'nextjs'],
    ['JAVA_OPTS', 'java', 'unknown'],
    ['SPRING_PROFILES_ACTIVE', 'java', 'spring-boot'],
    ['PYTHONUNBUFFERED', 'python', 'unknown'],
    ['DJANGO_SETTINGS_MODULE', 'python', 'django'],
    ['GOMAXPROCS', 'go', 'unknown'],
    ['ASPNETCORE_URLS', 'dotnet', 'aspnetcore'],
    ['RAILS_ENV', 'ruby', 'rails'],
    ['PHP_MEMORY_LIMIT', 'php', 'unknown'],
  ])('%s → %s (%s)', (name, lang, framework) => {
    expect(detect({ env: [{ name, value: 'x' }] })).toMatchObject({
      lang,
      framework,
      confidence: 0.5,
      source: 'environment',
    });
  });

  it('many names of one language are still one 0.5 signal', () => {
    const env = ['NODE_ENV', 'NODE_OPTIONS', 'NPM_CONFIG_LOGLEVEL', 'YARN_CACHE_FOLDER'].map((name) => ({
      name,
      value: '1',
    }));
    expect(detect({ env })).toMatchObject({ lang: 'nodejs', confidence: 0.5 });
  });
});

describe('combining signals', () => {
  it('agreeing signals combine as 1 − Π(1 − c)', () => {
    // command 0.8 and image 0.7: 1 − 0.2 × 0.3 = 0.94
    expect(detect({ image: 'node:20', command: ['node', 'server.js'] })).toMatchObject({
      lang: 'nodejs',
      confidence: 0.94,
      source: 'command',
    });
    // image 0.7 and environment 0.5: 1 − 0.3 × 0.5 = 0.85
    expect(detect({ image: 'python:3.12', env: [{ name: 'PYTHONUNBUFFERED', value: '1' }] })).toMatchObject({
      confidence: 0.85,
      source: 'image',
    });
  });

  it(`heuristics never exceed ${HEURISTIC_CAP}`, () => {
    const d = detect({
      image: 'node:20',
      command: ['node', 'server.js'],
      env: [{ name: 'NODE_ENV', value: 'production' }],
    });
    expect(d.confidence).toBe(HEURISTIC_CAP); // 1 − 0.2 × 0.3 × 0.5 = 0.97, capped
  });

  it('a competing language lowers the winner: × (1 − 0.5 × c_other)', () => {
    // node command 0.8 vs python image 0.7: 0.8 × 0.65 = 0.52
    expect(detect({ image: 'python:3.12', command: ['node', 'bridge.js'] })).toMatchObject({
      lang: 'nodejs',
      confidence: 0.52,
    });
    // node command + image (0.94) vs a Python env name (0.5): 0.94 × 0.75 = 0.705, rounded half up to two decimals
    expect(
      detect({ image: 'node:20', command: ['node', 'a.js'], env: [{ name: 'PYTHONPATH', value: '/x' }] }),
    ).toMatchObject({ lang: 'nodejs', confidence: 0.71 });
  });

  it('equal evidence: the stronger single signal wins, then the command over the image', () => {
    // python script 0.7 vs ruby image 0.7: a tie, the command decides; 0.7 × (1 − 0.5 × 0.7) = 0.455 → 0.46
    expect(detect({ image: 'ruby:3', command: ['app.py'] })).toMatchObject({
      lang: 'python',
      confidence: 0.46,
      source: 'command',
    });
    expect(detect({ image: 'acme/api-django:1', command: ['/srv/run.rb'] })).toMatchObject({
      lang: 'ruby',
      source: 'command',
    });
  });

  it('the framework comes from the strongest signal naming one for the winning language', () => {
    expect(detect({ image: 'acme/shop-express:1', command: ['npx', 'next', 'start'] })).toMatchObject({
      framework: 'nextjs',
    });
    expect(
      detect({
        image: 'eclipse-temurin:21',
        command: ['java', '-jar', 'a.jar'],
        env: [{ name: 'SPRING_MAIN_BANNER', value: 'off' }],
      }),
    ).toMatchObject({ framework: 'spring-boot' });
  });

  it('nothing at all: unknown, confidence 0, source none', () => {
    expect(detect({})).toEqual({ lang: 'unknown', framework: 'unknown', confidence: 0, source: 'none' });
  });
});

describe('workloadOf', () => {
  const pod = (metadata: V1Pod['metadata']): V1Pod => ({ metadata, spec: { containers: [] } });
  const owner = (kind: string, name: string, controller?: boolean) => ({
    apiVersion: 'apps/v1',
    kind,
    name,
    uid: 'u',
    ...(controller === undefined ? {} : { controller }),
  });

  it('a ReplicaSet named <deployment>-<pod-template-hash> belongs to the Deployment', () => {
    expect(
      workloadOf(
        pod({
          generateName: 'checkout-api-7d4b9c8f6d-',
          labels: { 'pod-template-hash': '7d4b9c8f6d' },
          ownerReferences: [owner('ReplicaSet', 'checkout-api-7d4b9c8f6d', true)],
        }),
      ),
    ).toEqual({
      kind: 'Deployment',
      name: 'checkout-api',
    });
  });

  it('a ReplicaSet without the hash label is not a Deployment’s: the pod is known by the ReplicaSet name', () => {
    expect(
      workloadOf(pod({ generateName: 'manual-rs-', ownerReferences: [owner('ReplicaSet', 'manual-rs', true)] })),
    ).toEqual({ kind: 'Pod', name: 'manual-rs' });
    expect(
      workloadOf(pod({ labels: { 'pod-template-hash': 'abc' }, ownerReferences: [owner('ReplicaSet', 'other-xyz')] })),
    ).toEqual({ kind: 'Pod', name: 'other-xyz' });
  });

  it('StatefulSet and DaemonSet owners name the workload', () => {
    expect(workloadOf(pod({ name: 'ledger-0', ownerReferences: [owner('StatefulSet', 'ledger', true)] }))).toEqual({
      kind: 'StatefulSet',
      name: 'ledger',
    });
    expect(workloadOf(pod({ generateName: 'agent-', ownerReferences: [owner('DaemonSet', 'agent', true)] }))).toEqual({
      kind: 'DaemonSet',
      name: 'agent',
    });
  });

  it('the controller owner is preferred over other owners', () => {
    expect(workloadOf(pod({ ownerReferences: [owner('ConfigMap', 'x'), owner('StatefulSet', 'db', true)] }))).toEqual({
      kind: 'StatefulSet',
      name: 'db',
    });
  });

  it('otherwise generateName without its dash, then name, then unknown', () => {
    expect(
      workloadOf(pod({ generateName: 'report-28461234-', ownerReferences: [owner('Job', 'report-28461234', true)] })),
    ).toEqual({ kind: 'Pod', name: 'report-28461234' });
    expect(workloadOf(pod({ name: 'debug' }))).toEqual({ kind: 'Pod', name: 'debug' });
    expect(workloadOf({})).toEqual({ kind: 'Pod', name: 'unknown' });
  });
});
