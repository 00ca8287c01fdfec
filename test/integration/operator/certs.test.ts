/**
 * The webhook's certificate manager against the in-process fake Kubernetes API server: the Secret svc-zero-webhook-tls
 * is created once and reused, certificates are renewed with a third of their lifetime left (the clock is moved, not
 * waited for), the live HTTPS server presents a renewed certificate without a restart, and the caBundle of the
 * MutatingWebhookConfiguration follows — repaired when someone else changes it.
 *
 * Time: the manager's clock is injected, but TLS clients check validity against the real clock. Each test starts the
 * injected clock in the past so that the renewal point it moves to lies at the real "now"; certificates made there
 * are valid for the real clock too (they start an hour early).
 */
import { connect, type PeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { KubernetesObject, V1MutatingWebhookConfiguration, V1Secret } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  startCertificateManager,
  type CertificateManager,
  type CertificateManagerOptions,
} from '../../../operator/src/certs/manager';
import type { Clock } from '../../../operator/src/certs/clock';
import type { LogLevel } from '../../../operator/src/log';
import { startWebhookServer, type WebhookServer } from '../../../operator/src/admission/server';
import {
  SYSTEM_NAMESPACE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_NAME,
  WEBHOOK_PATH,
  WEBHOOK_SERVICE,
  WEBHOOK_TLS_SECRET,
} from '../../../operator/src/markers';
import { startFakeKube, type FakeKube } from '../../support/operator/fake-kube';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SERVICE_HOST = `${WEBHOOK_SERVICE}.${SYSTEM_NAMESPACE}.svc`;

/** Timers fire when the test moves time past them, not before. */
class ManualClock implements Clock {
  private timers = new Set<{ at: number; callback: () => void }>();
  constructor(private time: number) {}
  now(): number {
    return this.time;
  }
  /** Timers scheduled and not fired yet: a check that ran has scheduled the next once this is back to what it was. */
  get pending(): number {
    return this.timers.size;
  }
  schedule(ms: number, callback: () => void): () => void {
    const timer = { at: this.time + ms, callback };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }
  advanceTo(time: number): void {
    this.time = time;
    for (const timer of [...this.timers]) {
      if (timer.at > time) continue;
      this.timers.delete(timer);
      timer.callback();
    }
  }
  advanceBy(ms: number): void {
    this.advanceTo(this.time + ms);
  }
}

interface Logged {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

let fake: FakeKube;
let logs: Logged[];
const running: { stop(): void }[] = [];
const servers: WebhookServer[] = [];

function webhookConfiguration(caBundle?: string): KubernetesObject {
  const webhook = (name: string) => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Ignore',
    timeoutSeconds: 10,
    clientConfig: {
      service: { name: WEBHOOK_SERVICE, namespace: SYSTEM_NAMESPACE, path: WEBHOOK_PATH, port: 443 },
      ...(caBundle ? { caBundle } : {}),
    },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
  });
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: WEBHOOK_CONFIGURATION },
    // Two webhooks: every one of them must get the bundle.
    webhooks: [webhook(WEBHOOK_NAME), webhook(`ebpf.${WEBHOOK_NAME}`)],
  } as KubernetesObject;
}

const secret = () => fake.get('v1', 'Secret', SYSTEM_NAMESPACE, WEBHOOK_TLS_SECRET) as V1Secret | undefined;
const secretPem = (key: string) => Buffer.from(secret()?.data?.[key] ?? '', 'base64').toString('utf8');
const caBundles = () =>
  (
    (
      fake.get(
        'admissionregistration.k8s.io/v1',
        'MutatingWebhookConfiguration',
        undefined,
        WEBHOOK_CONFIGURATION,
      ) as V1MutatingWebhookConfiguration
    ).webhooks ?? []
  ).map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'));
const pemCount = (pem: string) => (pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
const writes = (resource: string) => fake.requests.filter((r) => r.method !== 'GET' && r.path.includes(`/${resource}`));

async function manager(options: Partial<CertificateManagerOptions> = {}): Promise<CertificateManager> {
  const started = await startCertificateManager({
    kubeConfig: fake.kubeConfig(),
    log: (level, msg, fields = {}) => logs.push({ level, msg, fields }),
    ...options,
  });
  running.push(started);
  return started;
}

/** Resolves with the next material the manager announces; the test's timeout bounds the wait. */
function nextChange(source: CertificateManager): Promise<{ cert: string; ca: string }> {
  return new Promise((resolve) => {
    const unsubscribe = source.onChange((material) => {
      unsubscribe();
      resolve(material);
    });
  });
}

/** The certificate the HTTPS server presents to a new connection from a client trusting `ca` (and checking the name). */
function presented(port: number, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: SERVICE_HOST, ca }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve(certificate);
    });
    socket.on('error', reject);
  });
}

async function webhookServer(tls: CertificateManager): Promise<WebhookServer> {
  const server = await startWebhookServer({
    port: 0,
    host: '127.0.0.1',
    tls,
    lookup: { namespace: async () => undefined, instrumentation: async () => undefined },
    settings: { version: 'test', images: { nodejs: 'n', java: 'j', python: 'p', ebpf: 'e' }, ebpfMemoryLimit: '512Mi' },
    log: (level, msg, fields = {}) => logs.push({ level, msg, fields }),
  });
  servers.push(server);
  return server;
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

beforeEach(async () => {
  fake = await startFakeKube();
  fake.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } });
  fake.put(webhookConfiguration());
  logs = [];
});

afterEach(async () => {
  for (const m of running.splice(0)) m.stop();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await fake.close();
});

describe('webhook certificate manager', () => {
  it('creates the Secret on first start and sets the caBundle of every webhook', async () => {
    const certs = await manager();
    const stored = secret();
    expect(stored?.type).toBe('kubernetes.io/tls');
    expect(Object.keys(stored?.data ?? {}).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(certs.current()).toEqual({ cert: secretPem('tls.crt'), key: secretPem('tls.key'), ca: secretPem('ca.crt') });

    const serving = new X509Certificate(secretPem('tls.crt'));
    const ca = new X509Certificate(secretPem('ca.crt'));
    expect(serving.subjectAltName?.split(', ').sort()).toEqual(
      [
        'svc-zero-webhook',
        'svc-zero-webhook.svc-system',
        'svc-zero-webhook.svc-system.svc',
        'svc-zero-webhook.svc-system.svc.cluster.local',
      ].map((n) => `DNS:${n}`),
    );
    expect(serving.checkIssued(ca) && serving.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);

    expect(caBundles()).toEqual([secretPem('ca.crt'), secretPem('ca.crt')]);
    expect(logs.map((l) => l.msg)).toEqual([
      'webhook certificates created',
      `caBundle of MutatingWebhookConfiguration ${WEBHOOK_CONFIGURATION} updated`,
    ]);

    // The server made from it is reachable by the Service name with the caBundle as the only trust.
    const server = await webhookServer(certs);
    expect((await presented(server.port, caBundles()[0]!)).fingerprint256).toBe(serving.fingerprint256);
  });

  it('reuses the stored certificates after a restart, writing nothing', async () => {
    const first = await manager();
    first.stop();
    const before = fake.requests.length;
    const second = await manager();
    expect(second.current()).toEqual(first.current());
    expect(fake.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('renews the serving certificate at its renewal point; the live server presents it without a restart', async () => {
    const servingValidityMs = 3 * HOUR;
    // Lifetime 4 h (1 h backdated): renewed 100 minutes after issue. Start the clock so that lands a minute from now.
    const start = Date.now() - 99 * MINUTE;
    const clock = new ManualClock(start);
    const certs = await manager({ clock, servingValidityMs, caValidityMs: 30 * 24 * HOUR });
    const server = await webhookServer(certs);
    const bundle = caBundles()[0]!;
    const first = secretPem('tls.crt');
    expect((await presented(server.port, bundle)).fingerprint256).toBe(fingerprint(first));

    // A minute before the renewal point nothing happens.
    clock.advanceTo(start + 99 * MINUTE);
    await certs.check();
    expect(secretPem('tls.crt')).toBe(first);

    const changed = nextChange(certs);
    clock.advanceTo(start + 100 * MINUTE + 1000);
    const renewed = await changed;
    expect(renewed.cert).not.toBe(first);
    expect(secretPem('tls.crt')).toBe(renewed.cert);
    expect(
      logs.some((l) => l.msg === 'webhook certificates updated' && String(l.fields.changes).includes('renewed')),
    ).toBe(true);

    // Same CA, so the caBundle stays valid as it is and is not rewritten; the server switched in place.
    expect(caBundles()).toEqual([bundle, bundle]);
    expect(renewed.ca).toBe(bundle);
    expect((await presented(server.port, bundle)).fingerprint256).toBe(fingerprint(renewed.cert));
    expect(logs.some((l) => l.msg === 'webhook server now presents the renewed certificate')).toBe(true);
  });

  it('renews the CA keeping the old one in the bundle until it expires', async () => {
    // CA lifetime 7 h (1 h backdated): renewed 220 minutes after issue, which the clock puts a minute from now.
    const start = Date.now() - 219 * MINUTE;
    const clock = new ManualClock(start);
    const certs = await manager({ clock, servingValidityMs: 3 * HOUR, caValidityMs: 6 * HOUR });
    const server = await webhookServer(certs);
    const oldCa = secretPem('ca.crt');
    expect(pemCount(oldCa)).toBe(1);

    const changed = nextChange(certs);
    clock.advanceTo(start + 220 * MINUTE + 1000);
    const renewed = await changed;

    const bundle = secretPem('ca.crt');
    expect(pemCount(bundle)).toBe(2);
    expect(bundle.startsWith(oldCa)).toBe(true);
    expect(caBundles()).toEqual([bundle, bundle]);
    expect(renewed.ca).toBe(bundle);
    // The new serving certificate is signed by the new CA; a client trusting the bundle accepts it ...
    const newCa = bundle.slice(oldCa.length);
    const serving = new X509Certificate(renewed.cert);
    expect(serving.verify(new X509Certificate(newCa).publicKey)).toBe(true);
    expect((await presented(server.port, bundle)).fingerprint256).toBe(serving.fingerprint256);
    // ... and one that still only knows the old CA would not: hence both in the bundle during the overlap.
    await expect(presented(server.port, oldCa)).rejects.toThrow(/certificate/);

    // Once the old CA has expired it leaves the bundle (and the caBundle follows).
    const dropped = nextChange(certs);
    clock.advanceTo(start + 6 * HOUR + 1000);
    expect((await dropped).ca).toBe(newCa);
    expect(secretPem('ca.crt')).toBe(newCa);
    expect(caBundles()).toEqual([newCa, newCa]);
  });

  it('repairs a caBundle someone else changed at the next check', async () => {
    const clock = new ManualClock(Date.now());
    await manager({ clock, checkIntervalMs: 30_000 });
    const bundle = secretPem('ca.crt');
    const configuration = fake.get(
      'admissionregistration.k8s.io/v1',
      'MutatingWebhookConfiguration',
      undefined,
      WEBHOOK_CONFIGURATION,
    ) as V1MutatingWebhookConfiguration;
    // A re-applied manifest without the caBundle on one webhook, a stale one on the other.
    configuration.webhooks![0]!.clientConfig.caBundle = undefined;
    configuration.webhooks![1]!.clientConfig.caBundle = Buffer.from(
      '-----BEGIN CERTIFICATE-----\nstale\n-----END CERTIFICATE-----\n',
    ).toString('base64');
    fake.put(configuration as KubernetesObject);

    clock.advanceBy(30_000);
    await vi.waitFor(() => expect(caBundles()).toEqual([bundle, bundle]), { timeout: 5000 });
  });

  it('waits for a missing MutatingWebhookConfiguration and fills its caBundle once it appears', async () => {
    fake.remove('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', undefined, WEBHOOK_CONFIGURATION);
    const clock = new ManualClock(Date.now());
    await manager({ clock });
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      expect.stringContaining(`MutatingWebhookConfiguration ${WEBHOOK_CONFIGURATION} not found`),
    ]);
    // Logged once, not at every check.
    const scheduled = clock.pending;
    clock.advanceBy(60_000);
    await vi.waitFor(() =>
      expect(
        fake.requests.filter((r) => r.path.endsWith(`/mutatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`)),
      ).toHaveLength(2),
    );
    // The request is out before the check has its answer and schedules the next: moving time before that would move
    // it past no timer, and the next check would never come.
    await vi.waitFor(() => expect(clock.pending).toBe(scheduled), { timeout: 5000 });
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);

    fake.put(webhookConfiguration());
    clock.advanceBy(60_000);
    await vi.waitFor(() => expect(caBundles()).toEqual([secretPem('ca.crt'), secretPem('ca.crt')]), { timeout: 5000 });
  });

  it('repairs a damaged Secret: keeps a valid CA, replaces what does not fit', async () => {
    const first = await manager();
    first.stop();
    const ca = secretPem('ca.crt');
    const stored = secret()!;
    // The serving certificate replaced by garbage, the Secret otherwise intact.
    fake.put({
      ...stored,
      data: { ...stored.data, 'tls.crt': Buffer.from('not a certificate').toString('base64') },
    } as KubernetesObject);
    const repaired = await manager();
    expect(repaired.current().ca).toBe(ca);
    expect(new X509Certificate(secretPem('tls.crt')).verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(
      logs.some(
        (l) =>
          l.msg === 'webhook certificates updated' && String(l.fields.changes).includes('serving certificate missing'),
      ),
    ).toBe(true);
  });

  it('replaces a CA whose key is lost, keeping the old CA trusted while it is valid', async () => {
    const first = await manager();
    first.stop();
    const oldCa = secretPem('ca.crt');
    const stored = secret()!;
    const { 'ca.key': _lost, ...rest } = stored.data!;
    fake.put({ ...stored, data: rest } as KubernetesObject);
    const repaired = await manager();
    const bundle = secretPem('ca.crt');
    expect(pemCount(bundle)).toBe(2);
    expect(bundle.startsWith(oldCa)).toBe(true);
    // The serving certificate the old CA signed is still trusted, so it stays.
    expect(repaired.current().cert).toBe(first.current().cert);
    expect(caBundles()).toEqual([bundle, bundle]);
  });

  it('two replicas starting together end up with one set of certificates', async () => {
    const [a, b] = await Promise.all([manager(), manager()]);
    expect(a.current()).toEqual(b.current());
    expect(a.current().cert).toBe(secretPem('tls.crt'));
    expect(writes('secrets').filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(1);
  });

  it('keeps serving the current certificate when a later check fails, and says so once', async () => {
    const clock = new ManualClock(Date.now());
    const certs = await manager({ clock });
    const before = certs.current();
    fake.forbid({ verb: 'get', resource: 'secrets', namespace: SYSTEM_NAMESPACE });
    clock.advanceBy(60_000);
    await vi.waitFor(() => expect(logs.filter((l) => l.level === 'error')).toHaveLength(1));
    expect(logs.find((l) => l.level === 'error')).toMatchObject({
      msg: 'webhook certificate check failed; retrying',
      fields: { error: expect.stringContaining('missing permission: cannot get secrets') },
    });
    // Retried sooner than the regular interval, without repeating the same error.
    const reads = () =>
      fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/secrets/${WEBHOOK_TLS_SECRET}`)).length;
    const readsBefore = reads();
    clock.advanceBy(10_000);
    // Queued behind the retry the clock just started, so both have run when it settles.
    await expect(certs.check()).rejects.toThrow('missing permission');
    expect(reads()).toBe(readsBefore + 2);
    expect(logs.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(certs.current()).toEqual(before);
  });

  it('fails to start with a clear message when it may not read the Secret', async () => {
    fake.forbid({ verb: 'get', resource: 'secrets', namespace: SYSTEM_NAMESPACE });
    await expect(manager()).rejects.toThrow(
      `missing permission: cannot get secrets in namespace ${SYSTEM_NAMESPACE} (user "fake-kube-user") while reading Secret ${SYSTEM_NAMESPACE}/${WEBHOOK_TLS_SECRET}`,
    );
  });
});
