/**
 * The webhook's certificate manager: keeps the CA and serving certificate in the Secret valid, the caBundle of the
 * MutatingWebhookConfiguration equal to the trusted CAs, and tells the HTTPS server when to switch certificates.
 *
 * Every check reads the Secret (so replicas and restarts share one CA), renews what `planCertificates` says, writes
 * back with optimistic concurrency, patches the caBundle when it differs, and only then hands the new serving pair to
 * the server: the API server learns a new CA before it can meet a certificate signed by it. Checks run every
 * `checkIntervalMs` (which also repairs a caBundle someone changed) and at each renewal point.
 */
import { AdmissionregistrationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { SYSTEM_NAMESPACE, WEBHOOK_CONFIGURATION, WEBHOOK_SERVICE, WEBHOOK_TLS_SECRET } from '../markers.js';
import { caBundleSyncer } from './bundle-sync.js';
import { syncCaBundle } from './ca-bundle.js';
import { systemClock, type Clock } from './clock.js';
import { tlsListeners } from './listeners.js';
import { bundlePem, type CertificateMaterial, type CertificatePolicy } from './plan.js';
import { kubeSecretStore, reconcileSecret } from './reconcile.js';
import type { TlsMaterial, TlsSource } from './source.js';
import { nextCheckInMs, retryInMs } from './timing.js';

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

/** The names and lifetimes of the webhook's certificates, from the options' defaults. */
export function certificatePolicy(options: CertificateManagerOptions, namespace: string): CertificatePolicy {
  const service = options.serviceName ?? WEBHOOK_SERVICE;
  return {
    dnsNames: [...new Set([...serviceDnsNames(service, namespace), ...(options.extraDnsNames ?? [])])],
    caCommonName: `${service}-ca`,
    caValidityMs: options.caValidityMs ?? 5 * 365 * DAY_MS,
    servingValidityMs: options.servingValidityMs ?? 365 * DAY_MS,
  };
}

/** Whether the server must switch: a new serving certificate, or a different set of trusted CAs. */
export function servingChanged(previous: CertificateMaterial, next: CertificateMaterial): boolean {
  return previous.serving.pem !== next.serving.pem || bundlePem(previous) !== bundlePem(next);
}

/** The Secret, the caBundle sync and the policy of the cluster the options name. */
function clusterParts(options: CertificateManagerOptions) {
  const namespace = options.namespace ?? SYSTEM_NAMESPACE;
  const configurationName = options.webhookConfiguration ?? WEBHOOK_CONFIGURATION;
  const core = options.kubeConfig.makeApiClient(CoreV1Api);
  const admission = options.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  return {
    store: kubeSecretStore(core, namespace, options.secretName ?? WEBHOOK_TLS_SECRET),
    syncBundle: caBundleSyncer({
      configurationName,
      log: options.log,
      sync: (pem) => syncCaBundle(admission, configurationName, pem),
    }),
    policy: certificatePolicy(options, namespace),
  };
}

const toTls = (m: CertificateMaterial): TlsMaterial => ({ key: m.keyPem, cert: m.serving.pem, ca: bundlePem(m) });

/** Starts the manager; resolves once a valid certificate is in place (and in the Secret), rejects with why it is not. */
export async function startCertificateManager(options: CertificateManagerOptions): Promise<CertificateManager> {
  const clock = options.clock ?? systemClock;
  const checkIntervalMs = options.checkIntervalMs ?? 60_000;
  const { log } = options;
  const { store, syncBundle, policy } = clusterParts(options);
  const listeners = tlsListeners(log);

  let material: CertificateMaterial | undefined;
  let queue: Promise<void> = Promise.resolve();
  let cancelTimer: (() => void) | undefined;
  let stopped = false;
  // A check failing the same way again and again is logged when it starts or changes, not every time.
  let lastFailure: string | undefined;

  async function runCheck(): Promise<void> {
    const next = await reconcileSecret({ store, policy, now: () => clock.now(), log });
    const previous = material;
    material = next;
    // The API server must trust the new CA before the server presents a certificate signed by it.
    await syncBundle(bundlePem(next), next.caCertificates.length);
    if (previous !== undefined && servingChanged(previous, next)) listeners.notify(toTls(next));
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
        if (lastFailure !== undefined) log('info', 'webhook certificate check succeeded again', { secret: store.ref });
        lastFailure = undefined;
        schedule(nextCheckInMs(material!, clock.now(), checkIntervalMs));
      } catch (error) {
        // The current certificate stays in use; it was valid at the last check and renewal starts well before expiry.
        const reason = error instanceof Error ? error.message : String(error);
        if (reason !== lastFailure)
          log('error', 'webhook certificate check failed; retrying', {
            error: reason,
            retryInMs: retryInMs(checkIntervalMs),
          });
        lastFailure = reason;
        schedule(retryInMs(checkIntervalMs));
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
    onChange: (listener) => listeners.add(listener),
    check,
    stop() {
      stopped = true;
      cancelTimer?.();
      listeners.clear();
    },
  };
}
