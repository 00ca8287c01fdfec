/**
 * The Secret that keeps the webhook's CA and serving certificate across restarts and replicas (type kubernetes.io/tls,
 * so `tls.crt`/`tls.key` are what tools expect; `ca.crt` holds every CA still trusted, `ca.key` the newest CA's key).
 */
import { ApiException, type CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { labels } from '../manifests/labels.js';
import type { CertificateMaterial, StoredCertificates } from './plan.js';
import { bundlePem } from './plan.js';

const KEYS = { cert: 'tls.crt', key: 'tls.key', caBundle: 'ca.crt', caKey: 'ca.key' } as const;

export interface StoredSecret {
  /** undefined when the Secret does not exist yet. */
  secret: V1Secret | undefined;
  certificates: StoredCertificates;
}

const decode = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
const encode = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

export async function readCertificateSecret(api: CoreV1Api, namespace: string, name: string): Promise<StoredSecret> {
  let secret: V1Secret;
  try {
    secret = await api.readNamespacedSecret({ name, namespace });
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return { secret: undefined, certificates: {} };
    throw error;
  }
  const data = secret.data ?? {};
  return {
    secret,
    certificates: {
      certPem: decode(data[KEYS.cert]),
      keyPem: decode(data[KEYS.key]),
      caBundlePem: decode(data[KEYS.caBundle]),
      caKeyPem: decode(data[KEYS.caKey]),
    },
  };
}

/** True when the Secret already holds exactly this material (byte for byte), so there is nothing to write. */
export function secretHolds(stored: StoredSecret, material: CertificateMaterial): boolean {
  const { certificates } = stored;
  return (
    stored.secret !== undefined &&
    certificates.certPem === material.serving.pem &&
    certificates.keyPem === material.keyPem &&
    certificates.caBundlePem === bundlePem(material) &&
    certificates.caKeyPem === material.caKeyPem
  );
}

/**
 * Creates the Secret, or replaces it at the resourceVersion it was read at: a 409 (another replica wrote first) reaches
 * the caller, which reads again and adopts what the other one wrote when it is valid.
 */
export async function writeCertificateSecret(
  api: CoreV1Api,
  namespace: string,
  name: string,
  stored: StoredSecret,
  material: CertificateMaterial,
): Promise<void> {
  const data = {
    ...stored.secret?.data,
    [KEYS.cert]: encode(material.serving.pem),
    [KEYS.key]: encode(material.keyPem),
    [KEYS.caBundle]: encode(bundlePem(material)),
    [KEYS.caKey]: encode(material.caKeyPem),
  };
  if (stored.secret === undefined) {
    await api.createNamespacedSecret({
      namespace,
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels: labels('webhook') },
        type: 'kubernetes.io/tls',
        data,
      },
    });
    return;
  }
  // The type is immutable: a Secret someone created as Opaque keeps that type and simply gets our keys.
  await api.replaceNamespacedSecret({ name, namespace, body: { ...stored.secret, data } });
}
