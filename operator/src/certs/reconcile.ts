/**
 * Brings the Secret holding the webhook's CA and serving certificate to a valid state: read it, plan what to renew,
 * write back with optimistic concurrency, and adopt what another replica wrote first (a 409: read again).
 */
import { ApiException, type CoreV1Api } from '@kubernetes/client-node';
import { describeApiError } from '../kube/errors.js';
import type { Logger } from '../log.js';
import { planCertificates, type CertificateMaterial, type CertificatePolicy } from './plan.js';
import { readCertificateSecret, secretHolds, writeCertificateSecret, type StoredSecret } from './secret.js';

/** Where the certificates are kept: one Secret, read whole and replaced at the version it was read at. */
export interface SecretStore {
  /** e.g. `svc-system/svc-zero-webhook-tls`, for messages. */
  ref: string;
  read(): Promise<StoredSecret>;
  write(stored: StoredSecret, material: CertificateMaterial): Promise<void>;
}

/** The Secret `namespace/name` through the Kubernetes API. */
export function kubeSecretStore(core: CoreV1Api, namespace: string, name: string): SecretStore {
  return {
    ref: `${namespace}/${name}`,
    read: () => readCertificateSecret(core, namespace, name),
    write: (stored, material) => writeCertificateSecret(core, namespace, name, stored, material),
  };
}

export interface ReconcileOptions {
  store: SecretStore;
  policy: CertificatePolicy;
  now(): number;
  log: Logger['log'];
}

/** Another writer may win this many times in a row before the check gives up (and retries later). */
const MAX_ATTEMPTS = 5;

/** Returns the valid certificates the Secret holds once this returns; rejects with why the Secret could not be kept. */
export async function reconcileSecret({ store, policy, now, log }: ReconcileOptions): Promise<CertificateMaterial> {
  for (let attempt = 1; ; attempt++) {
    let stored;
    try {
      stored = await store.read();
    } catch (error) {
      throw new Error(describeApiError(error, `reading Secret ${store.ref}`), { cause: error });
    }
    const { material: planned, changes } = await planCertificates(stored.certificates, now(), policy);
    if (secretHolds(stored, planned)) return planned;
    try {
      await store.write(stored, planned);
    } catch (error) {
      // 409: another replica created or updated the Secret since we read it; read again and adopt its certificates.
      if (error instanceof ApiException && error.code === 409 && attempt < MAX_ATTEMPTS) continue;
      throw new Error(describeApiError(error, `${stored.secret ? 'updating' : 'creating'} Secret ${store.ref}`), {
        cause: error,
      });
    }
    log('info', stored.secret ? 'webhook certificates updated' : 'webhook certificates created', {
      secret: store.ref,
      changes: changes.length > 0 ? changes : ['normalized the stored PEM'],
      servingNotAfter: new Date(planned.serving.notAfter).toISOString(),
      trustedCas: planned.caCertificates.length,
    });
    return planned;
  }
}
