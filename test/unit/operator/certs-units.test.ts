/**
 * The certificate manager's parts (operator/src/certs): when it checks again, how it keeps the Secret (created once,
 * left alone while valid, another replica's write adopted), how it keeps the caBundle and says so, and how it hands a
 * new certificate to its listeners. The whole manager against a Kubernetes API: test/integration/operator/certs.
 */
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { caBundleSyncer } from '../../../operator/src/certs/bundle-sync';
import type { CaBundleSync } from '../../../operator/src/certs/ca-bundle';
import { tlsListeners } from '../../../operator/src/certs/listeners';
import { certificatePolicy, servingChanged } from '../../../operator/src/certs/manager';
import { bundlePem, nextChangeAt, planCertificates, type CertificateMaterial } from '../../../operator/src/certs/plan';
import { reconcileSecret, type SecretStore } from '../../../operator/src/certs/reconcile';
import type { StoredSecret } from '../../../operator/src/certs/secret';
import { nextCheckInMs, retryInMs } from '../../../operator/src/certs/timing';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY_MS = 86_400_000;
const policy = certificatePolicy({ kubeConfig: undefined as never, log: () => undefined }, 'svc-system');

function logged() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  return {
    lines,
    log: (level: string, message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields }),
  };
}

const fresh = async (): Promise<CertificateMaterial> => (await planCertificates({}, NOW, policy)).material;

describe('certificatePolicy and servingChanged', () => {
  it('names the Service as the API server dials it, plus extra names once each; CA 5 years, serving 1 year', () => {
    expect(policy).toEqual({
      dnsNames: [
        'svc-zero-webhook.svc-system.svc',
        'svc-zero-webhook.svc-system.svc.cluster.local',
        'svc-zero-webhook.svc-system',
        'svc-zero-webhook',
      ],
      caCommonName: 'svc-zero-webhook-ca',
      caValidityMs: 5 * 365 * DAY_MS,
      servingValidityMs: 365 * DAY_MS,
    });
    const extra = certificatePolicy(
      { kubeConfig: undefined as never, log: () => undefined, extraDnsNames: ['localhost', 'svc-zero-webhook'] },
      'svc-system',
    );
    expect(extra.dnsNames.slice(-1)).toEqual(['localhost']);
  });

  it('a new serving certificate or CA set is a change; the same material is not', async () => {
    const a = await fresh();
    const b = await fresh();
    expect(servingChanged(a, structuredClone(a))).toBe(false);
    expect(servingChanged(a, b)).toBe(true);
    expect(servingChanged(a, { ...a, caCertificates: [...b.caCertificates, ...a.caCertificates] })).toBe(true);
  });
});

describe('nextCheckInMs and retryInMs: the renewal timing decision', () => {
  it('checks at the next renewal point, at least every interval and at most once a second; retries within 10 s', async () => {
    const material = await fresh();
    const due = nextChangeAt(material);
    expect(due).toBeGreaterThan(NOW);
    expect(nextCheckInMs(material, NOW, 60_000)).toBe(60_000);
    expect(nextCheckInMs(material, due - 5_000, 60_000)).toBe(5_000);
    expect(nextCheckInMs(material, due + 1, 60_000)).toBe(1000);
    expect(nextCheckInMs(material, due - 100, 60_000)).toBe(1000);
    expect(retryInMs(60_000)).toBe(10_000);
    expect(retryInMs(2_000)).toBe(2_000);
  });
});

/** A Secret in memory, as readCertificateSecret would decode it; `conflicts` writes answer 409 first. */
function memoryStore(conflicts = 0, other?: CertificateMaterial) {
  let stored: StoredSecret = { secret: undefined, certificates: {} };
  const holding = (m: CertificateMaterial): StoredSecret => ({
    secret: { metadata: { name: 'svc-zero-webhook-tls' } },
    certificates: { certPem: m.serving.pem, keyPem: m.keyPem, caBundlePem: bundlePem(m), caKeyPem: m.caKeyPem },
  });
  const store: SecretStore & { writes: number } = {
    ref: 'svc-system/svc-zero-webhook-tls',
    writes: 0,
    read: async () => structuredClone(stored),
    async write(_read, material) {
      if (conflicts-- > 0) {
        // Another replica wrote first: what it wrote is what the next read finds.
        if (other) stored = holding(other);
        throw new ApiException(409, 'Conflict', {}, {});
      }
      store.writes++;
      stored = holding(material);
    },
  };
  return store;
}

describe('reconcileSecret: the Secret read and written', () => {
  it('creates the Secret once, then finds it valid and writes nothing', async () => {
    const store = memoryStore();
    const { lines, log } = logged();
    const first = await reconcileSecret({ store, policy, now: () => NOW, log });
    expect(store.writes).toBe(1);
    expect(lines.map((l) => l.message)).toEqual(['webhook certificates created']);
    const again = await reconcileSecret({ store, policy, now: () => NOW + DAY_MS, log });
    expect(store.writes).toBe(1);
    expect(again.serving.pem).toBe(first.serving.pem);
    expect(lines).toHaveLength(1);
  });

  it('adopts what another replica wrote first (a 409), instead of writing its own', async () => {
    const theirs = await fresh();
    const store = memoryStore(1, theirs);
    const adopted = await reconcileSecret({ store, policy, now: () => NOW, log: () => undefined });
    expect(adopted.serving.pem).toBe(theirs.serving.pem);
    expect(store.writes).toBe(0);
  });

  it('gives up after five conflicts in a row, and names the Secret when it cannot be read', async () => {
    await expect(
      reconcileSecret({ store: memoryStore(5), policy, now: () => NOW, log: () => undefined }),
    ).rejects.toThrow(/creating Secret svc-system\/svc-zero-webhook-tls/);
    const unreadable: SecretStore = { ...memoryStore(), read: () => Promise.reject(new Error('connection refused')) };
    await expect(reconcileSecret({ store: unreadable, policy, now: () => NOW, log: () => undefined })).rejects.toThrow(
      /reading Secret svc-system\/svc-zero-webhook-tls/,
    );
  });
});

describe('caBundleSyncer', () => {
  it('logs a patch; a problem when it starts or changes, and once when it is over; never rejects', async () => {
    const answers: Array<CaBundleSync | Error> = [
      { outcome: 'patched', webhooks: ['pods.svc.io'] },
      { outcome: 'missing' },
      { outcome: 'missing' },
      new Error('forbidden'),
      { outcome: 'unchanged' },
      { outcome: 'unchanged' },
    ];
    const bundles: string[] = [];
    const { lines, log } = logged();
    const sync = caBundleSyncer({
      configurationName: 'svc-zero',
      log,
      sync: async (pem) => {
        bundles.push(pem);
        const answer = answers.shift()!;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    for (let i = 0; i < 6; i++) await sync('PEM', 2);
    expect(bundles).toEqual(Array(6).fill('PEM'));
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'caBundle of MutatingWebhookConfiguration svc-zero updated'],
      ['warn', expect.stringMatching(/^MutatingWebhookConfiguration svc-zero not found: /)],
      ['warn', expect.stringMatching(/updating the caBundle of MutatingWebhookConfiguration svc-zero.*forbidden/)],
      ['info', 'caBundle of MutatingWebhookConfiguration svc-zero is current again'],
    ]);
    expect(lines[0]!.fields).toEqual({ webhooks: ['pods.svc.io'], trustedCas: 2 });
  });
});

describe('tlsListeners', () => {
  it('hands the new material to each listener; one that throws is logged and the others still get it', () => {
    const { lines, log } = logged();
    const listeners = tlsListeners(log);
    const got: string[] = [];
    listeners.add(() => {
      throw new Error('bad listener');
    });
    const remove = listeners.add((tls) => got.push(`second ${tls.cert}`));
    listeners.add((tls) => got.push(`third ${tls.cert}`));
    listeners.notify({ key: 'k', cert: 'c1', ca: 'a' });
    remove();
    listeners.notify({ key: 'k', cert: 'c2', ca: 'a' });
    expect(got).toEqual(['second c1', 'third c1', 'third c2']);
    expect(lines.map((l) => [l.level, l.fields])).toEqual([
      ['error', { error: 'bad listener' }],
      ['error', { error: 'bad listener' }],
    ]);
  });
});
