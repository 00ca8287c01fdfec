/** Where loadKubeConfig looks, in which order, and what it says when it finds nothing usable. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KubeConfigError, loadKubeConfig, locateKubeConfig } from '../../../operator/src/kube/config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A kubeconfig with one context per cluster name, the first current. */
function kubeconfig(file: string, clusters: string[], current: string | undefined = clusters[0]): string {
  const path = join(dir, file);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: clusters.map((name) => ({ name, cluster: { server: `https://${name}.example.com:6443` } })),
      users: clusters.map((name) => ({ name, user: { token: `token-${name}` } })),
      contexts: clusters.map((name) => ({ name, context: { cluster: name, user: name } })),
      ...(current ? { 'current-context': current } : {}),
    }),
  );
  return path;
}

const empty = { env: {}, home: '/nonexistent-home' };

describe('loadKubeConfig', () => {
  it('says where it looked when there is no configuration at all (instead of defaulting to localhost:8080)', () => {
    expect(() => loadKubeConfig(empty)).toThrow(KubeConfigError);
    expect(() => loadKubeConfig(empty)).toThrow(
      'no Kubernetes configuration found: no --kubeconfig given, KUBECONFIG is not set, /nonexistent-home/.kube/config does not exist, and this is not a pod (KUBERNETES_SERVICE_HOST is not set); pass --kubeconfig=<path> or set KUBECONFIG',
    );
  });

  it('uses --kubeconfig first, and refuses one that does not exist', () => {
    const explicit = kubeconfig('explicit', ['prod']);
    const fromEnv = kubeconfig('env', ['staging']);
    expect(locateKubeConfig({ ...empty, kubeconfig: explicit, env: { KUBECONFIG: fromEnv } })).toMatchObject({
      source: `--kubeconfig ${explicit}`,
    });
    expect(loadKubeConfig({ ...empty, kubeconfig: explicit }).getCurrentCluster()?.server).toBe(
      'https://prod.example.com:6443',
    );
    expect(() => loadKubeConfig({ ...empty, kubeconfig: join(dir, 'missing') })).toThrow(
      `kubeconfig ${join(dir, 'missing')} (from --kubeconfig) does not exist`,
    );
  });

  it('merges KUBECONFIG files like kubectl (first wins, missing files skipped), and names them when none exists', () => {
    const first = kubeconfig('a', ['prod']);
    const second = kubeconfig('b', ['staging', 'prod'], 'staging');
    const config = loadKubeConfig({
      ...empty,
      env: { KUBECONFIG: [join(dir, 'nope'), first, second].join(delimiter) },
    });
    expect(config.getContexts().map((context) => context.name)).toEqual(['prod', 'staging']);
    expect(config.getCurrentContext()).toBe('prod');
    expect(() => loadKubeConfig({ ...empty, env: { KUBECONFIG: join(dir, 'nope') } })).toThrow(
      `KUBECONFIG names ${join(dir, 'nope')}, but that file does not exist`,
    );
  });

  it('selects --context, and lists the available ones when it does not exist', () => {
    const file = kubeconfig('multi', ['prod', 'staging']);
    expect(loadKubeConfig({ ...empty, kubeconfig: file, context: 'staging' }).getCurrentCluster()?.server).toBe(
      'https://staging.example.com:6443',
    );
    expect(() => loadKubeConfig({ ...empty, kubeconfig: file, context: 'dev' })).toThrow(
      `context "dev" is not in the kubeconfig (--kubeconfig ${file}); available contexts: prod, staging`,
    );
    const noCurrent = kubeconfig('none', ['prod'], '');
    expect(() => loadKubeConfig({ ...empty, kubeconfig: noCurrent })).toThrow(
      'has no current context; pass --context (available contexts: prod)',
    );
  });

  it('reads a broken kubeconfig with an error naming the file', () => {
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'clusters: [ {name: x} ]\n');
    expect(() => loadKubeConfig({ ...empty, kubeconfig: broken })).toThrow(
      `cannot read kubeconfig ${broken}: clusters[0].cluster is missing`,
    );
  });

  it('uses the service account in a pod (before ~/.kube/config), and explains a missing token', async () => {
    const home = join(dir, 'home');
    kubeconfig('home/.kube/config', ['laptop']);
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(() => loadKubeConfig({ env, home, root: dir })).toThrow(
      `the service account token ${join(dir, 'var/run/secrets/kubernetes.io/serviceaccount/token')} does not exist`,
    );

    const account = join(dir, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(account, { recursive: true });
    writeFileSync(join(account, 'token'), 'pod-token');
    writeFileSync(join(account, 'namespace'), 'svc-system');
    writeFileSync(join(account, 'ca.crt'), '');
    const loaded = locateKubeConfig({ env, home, root: dir });
    expect(loaded.source).toBe('in-cluster service account');
    expect(loaded.kubeConfig.getCurrentCluster()?.server).toBe('https://10.96.0.1:443');
    expect(loaded.kubeConfig.getContextObject(loaded.kubeConfig.getCurrentContext())?.namespace).toBe('svc-system');
    const request: { headers?: Record<string, string> } = {};
    await loaded.kubeConfig.applyToHTTPSOptions(request);
    expect(request.headers?.Authorization).toBe('Bearer pod-token');
    expect(process.env.KUBERNETES_SERVICE_HOST).toBeUndefined();

    // Outside a pod, ~/.kube/config.
    expect(locateKubeConfig({ env: {}, home })).toMatchObject({ source: join(home, '.kube', 'config') });
  });
});
