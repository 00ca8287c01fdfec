/**
 * The webhook's certificate manager: keeps the CA and serving certificate in the Secret valid, the caBundle of the
 * MutatingWebhookConfiguration equal to the trusted CAs, and tells the HTTPS server when to switch certificates.
 *
 * Every check reads the Secret (so replicas and restarts share one CA), renews what `planCertificates` says, writes
 * back with optimistic concurrency, patches the caBundle when it differs, and only then hands the new serving pair to
 * the server: the API server learns a new CA before it can meet a certificate signed by it. Checks run every
 * `checkIntervalMs` (which also repairs a caBundle someone changed) and at each renewal point.
 */
import { AdmissionregistrationV1Api, ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { describeApiError } from '../kube/errors.js';
import { SYSTEM_NAMESPACE, WEBHOOK_CONFIGURATION, WEBHOOK_SERVICE, WEBHOOK_TLS_SECRET } from '../markers.js';
import { syncCaBundle } from './ca-bundle.js';
import { systemClock, type Clock } from './clock.js';
import type { Logger } from '../log.js';
import { bundlePem, nextChangeAt, planCertificates, type CertificateMaterial, type CertificatePolicy } from './plan.js';
import { readCertificateSecret, secretHolds, writeCertificateSecret } from './secret.js';
import type { TlsMaterial, TlsSource } from './source.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CertificateManagerOptions {
  kubeConfig: KubeConfig;
  /** One structured line per event (pass `logger.log`). */
  log: Logger['log'];
  /** Where the Secret and the webhook Service live; defaults to svc-system. */
  namespace?: string;
  secretName?: string;
  webhookConfiguration?: string;
  serviceName?: string;
  /** More names for the serving certificate (e.g. `localhost` when the API server reaches the webhook by URL). */
  extraDnsNames?: string[];
  /** Defaults: CA 5 years, serving certificate 1 year; each is renewed with a third of its lifetime left. */
  caValidityMs?: number;
  servingValidityMs?: number;
  /** How often the Secret and the caBundle are checked besides the renewal points; default 60 s. */
  checkIntervalMs?: number;
  clock?: Clock;
}

export interface CertificateManager extends TlsSource {
  /** Runs a check now (after the one in progress, if any); rejects when the Secret cannot be read or written. */
  check(): Promise<void>;
  /** The names in the serving certificate. */
  readonly dnsNames: readonly string[];
  stop(): void;
}

/** The names the API server may use for the webhook Service: `<svc>.<ns>.svc` is what it dials. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
    `${service}.${namespace}`,
    service,
  ];
}

/** Starts the manager; resolves once a valid certificate is in place (and in the Secret), rejects with why it is not. */
export async function startCertificateManager(options: CertificateManagerOptions): Promise<CertificateManager> {
  const namespace = options.namespace ?? SYSTEM_NAMESPACE;
  const secretName = options.secretName ?? WEBHOOK_TLS_SECRET;
  const configurationName = options.webhookConfiguration ?? WEBHOOK_CONFIGURATION;
  const clock = options.clock ?? systemClock;
  const checkIntervalMs = options.checkIntervalMs ?? 60_000;
  const { log } = options;
  const core = options.kubeConfig.makeApiClient(CoreV1Api);
  const admission = options.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const policy: CertificatePolicy = {
    dnsNames: [
      ...new Set([
        ...serviceDnsNames(options.serviceName ?? WEBHOOK_SERVICE, namespace),
        ...(options.extraDnsNames ?? []),
      ]),
    ],
    caCommonName: `${options.serviceName ?? WEBHOOK_SERVICE}-ca`,
    caValidityMs: options.caValidityMs ?? 5 * 365 * DAY_MS,
    servingValidityMs: options.servingValidityMs ?? 365 * DAY_MS,
  };
  const secretRef = `${namespace}/${secretName}`;

  let material: CertificateMaterial | undefined;
  const listeners = new Set<(tls: TlsMaterial) => void>();
  let queue: Promise<void> = Promise.resolve();
  let cancelTimer: (() => void) | undefined;
  let stopped = false;
  // Repeated failures (a missing configuration, a missing permission) are logged when they start or change, not every minute.
  let lastProblem: string | undefined;
  let lastFailure: string | undefined;

  const toTls = (m: CertificateMaterial): TlsMaterial => ({ key: m.keyPem, cert: m.serving.pem, ca: bundlePem(m) });

  /** Brings the Secret to a valid state and returns what it holds; retries when another writer got there first. */
  async function reconcileSecret(): Promise<CertificateMaterial> {
    for (let attempt = 1; ; attempt++) {
      let stored;
      try {
        stored = await readCertificateSecret(core, namespace, secretName);
      } catch (error) {
        throw new Error(describeApiError(error, `reading Secret ${secretRef}`), { cause: error });
      }
      const { material: planned, changes } = await planCertificates(stored.certificates, clock.now(), policy);
      if (secretHolds(stored, planned)) return planned;
      try {
        await writeCertificateSecret(core, namespace, secretName, stored, planned);
      } catch (error) {
        // 409: another replica created or updated the Secret since we read it; read again and adopt its certificates.
        if (error instanceof ApiException && error.code === 409 && attempt < 5) continue;
        throw new Error(describeApiError(error, `${stored.secret ? 'updating' : 'creating'} Secret ${secretRef}`), {
          cause: error,
        });
      }
      log('info', stored.secret ? 'webhook certificates updated' : 'webhook certificates created', {
        secret: secretRef,
        changes: changes.length > 0 ? changes : ['normalized the stored PEM'],
        servingNotAfter: new Date(planned.serving.notAfter).toISOString(),
        trustedCas: planned.caCertificates.length,
      });
      return planned;
    }
  }

  async function syncBundle(m: CertificateMaterial): Promise<void> {
    let problem: string | undefined;
    try {
      const result = await syncCaBundle(admission, configurationName, bundlePem(m));
      if (result.outcome === 'patched') {
        log('info', `caBundle of MutatingWebhookConfiguration ${configurationName} updated`, {
          webhooks: result.webhooks,
          trustedCas: m.caCertificates.length,
        });
      }
      if (result.outcome === 'missing') {
        problem = `MutatingWebhookConfiguration ${configurationName} not found: the API server will not call the webhook until it is installed (svc-zero install); its caBundle is set once it exists`;
      }
    } catch (error) {
      problem = describeApiError(error, `updating the caBundle of MutatingWebhookConfiguration ${configurationName}`);
    }
    if (problem !== undefined && problem !== lastProblem) log('warn', problem);
    if (problem === undefined && lastProblem !== undefined)
      log('info', `caBundle of MutatingWebhookConfiguration ${configurationName} is current again`);
    lastProblem = problem;
  }

  async function runCheck(): Promise<void> {
    const next = await reconcileSecret();
    const previous = material;
    material = next;
    // The API server must trust the new CA before the server presents a certificate signed by it.
    await syncBundle(next);
    const changed =
      previous === undefined || previous.serving.pem !== next.serving.pem || bundlePem(previous) !== bundlePem(next);
    if (previous !== undefined && changed) {
      const tls = toTls(next);
      for (const listener of listeners) {
        try {
          listener(tls);
        } catch (error) {
          log('error', 'a listener failed to take the new webhook certificate', {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }
  }

  function schedule(delayMs: number): void {
    cancelTimer?.();
    if (stopped) return;
    cancelTimer = clock.schedule(delayMs, () => {
      void check().catch(() => undefined);
    });
  }

  function check(): Promise<void> {
    const run = queue.then(async () => {
      if (stopped) return;
      try {
        await runCheck();
        if (lastFailure !== undefined) log('info', 'webhook certificate check succeeded again', { secret: secretRef });
        lastFailure = undefined;
        schedule(Math.max(1000, Math.min(checkIntervalMs, nextChangeAt(material!) - clock.now())));
      } catch (error) {
        // The current certificate stays in use; it was valid at the last check and renewal starts well before expiry.
        const reason = error instanceof Error ? error.message : String(error);
        if (reason !== lastFailure)
          log('error', 'webhook certificate check failed; retrying', {
            error: reason,
            retryInMs: Math.min(checkIntervalMs, 10_000),
          });
        lastFailure = reason;
        schedule(Math.min(checkIntervalMs, 10_000));
        throw error;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  }

  try {
    await check();
  } catch (error) {
    // Nothing to serve with: the caller reports the error; no retry is left running behind its back.
    stopped = true;
    cancelTimer?.();
    throw error;
  }
  return {
    dnsNames: policy.dnsNames,
    current: () => toTls(material!),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check,
    stop() {
      stopped = true;
      cancelTimer?.();
      listeners.clear();
    },
  };
}
