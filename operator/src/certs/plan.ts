/**
 * Decides what the webhook's certificates must become at a given time: keeps what is valid, renews what has less than
 * a third of its lifetime left, replaces what is missing or damaged. Renewing the CA appends the new one to the
 * bundle and keeps the old one there until it expires (as kyverno's renewer does), so a serving certificate the old
 * CA signed — still presented by this or another replica — stays trusted through the overlap.
 */
import {
  createCa,
  issueServingCertificate,
  isSigningKey,
  keyMatches,
  parseCertificates,
  signedBy,
  type CertificateInfo,
} from './x509.js';

export interface CertificatePolicy {
  /** Names the serving certificate must carry, the first being its CN. */
  dnsNames: readonly string[];
  caCommonName: string;
  caValidityMs: number;
  servingValidityMs: number;
}

/** What the Secret holds, as read (any part may be missing or damaged). */
export interface StoredCertificates {
  caBundlePem?: string;
  caKeyPem?: string;
  certPem?: string;
  keyPem?: string;
}

/** A complete, valid set: the CAs to trust (oldest first; the last one signs), its key, and the serving pair. */
export interface CertificateMaterial {
  caCertificates: CertificateInfo[];
  caKeyPem: string;
  serving: CertificateInfo;
  keyPem: string;
}

export interface PlanResult {
  material: CertificateMaterial;
  /** Why the material differs from what was stored; empty when the stored set is kept as it is. */
  changes: string[];
}

/** The moment a certificate is due for renewal: when a third of its lifetime is left. */
export function renewalPoint(certificate: Pick<CertificateInfo, 'notBefore' | 'notAfter'>): number {
  return certificate.notAfter - (certificate.notAfter - certificate.notBefore) / 3;
}

/** The PEM bundle clients (the API server's `caBundle`) must trust. */
export function bundlePem(material: Pick<CertificateMaterial, 'caCertificates'>): string {
  return material.caCertificates.map((certificate) => certificate.pem).join('');
}

/** When the material next needs attention: a renewal point, or an old CA to drop from the bundle. */
export function nextChangeAt(material: CertificateMaterial): number {
  const signing = material.caCertificates.at(-1);
  const times = [renewalPoint(material.serving), ...material.caCertificates.slice(0, -1).map((ca) => ca.notAfter)];
  if (signing) times.push(renewalPoint(signing));
  return Math.min(...times);
}

export async function planCertificates(
  stored: StoredCertificates,
  now: number,
  policy: CertificatePolicy,
): Promise<PlanResult> {
  const changes: string[] = [];
  const parsedCas = parseCertificates(stored.caBundlePem ?? '');
  const caCertificates: CertificateInfo[] = [];
  for (const ca of parsedCas) {
    if (!ca.isCa || ca.notAfter <= now || caCertificates.some((kept) => kept.pem === ca.pem)) continue;
    caCertificates.push(ca);
  }
  if (caCertificates.length < parsedCas.length)
    changes.push('dropped expired or unusable CA certificates from the bundle');

  let caKeyPem = stored.caKeyPem ?? '';
  const signing = caCertificates.at(-1);
  const signingUsable = signing !== undefined && isSigningKey(caKeyPem) && keyMatches(signing.pem, caKeyPem);
  if (!signingUsable || now >= renewalPoint(signing)) {
    changes.push(
      signingUsable
        ? 'CA renewed: less than a third of its lifetime left'
        : 'new CA: none stored, or its key is missing or does not match',
    );
    const ca = await createCa({ now, validityMs: policy.caValidityMs, commonName: policy.caCommonName });
    const [info] = parseCertificates(ca.certPem);
    if (!info) throw new Error('the generated CA certificate does not parse');
    caCertificates.push(info);
    caKeyPem = ca.keyPem;
  }

  const stale = servingProblem(stored, caCertificates, now, policy);
  if (stale === undefined) {
    const [serving] = parseCertificates(stored.certPem ?? '');
    if (serving) return { material: { caCertificates, caKeyPem, serving, keyPem: stored.keyPem ?? '' }, changes };
  }
  changes.push(`serving certificate ${stale ?? 'unreadable'}`);
  const signer = caCertificates.at(-1)!;
  const pair = await issueServingCertificate({
    ca: { certPem: signer.pem, keyPem: caKeyPem },
    now,
    validityMs: policy.servingValidityMs,
    dnsNames: policy.dnsNames,
  });
  const [serving] = parseCertificates(pair.certPem);
  if (!serving) throw new Error('the generated serving certificate does not parse');
  return { material: { caCertificates, caKeyPem, serving, keyPem: pair.keyPem }, changes };
}

/** Why the stored serving certificate cannot stay, or undefined when it can. */
function servingProblem(
  stored: StoredCertificates,
  trusted: CertificateInfo[],
  now: number,
  policy: CertificatePolicy,
): string | undefined {
  const [serving] = parseCertificates(stored.certPem ?? '');
  if (!serving) return 'missing';
  if (!keyMatches(serving.pem, stored.keyPem ?? '')) return 'replaced: its key is missing or does not match';
  if (serving.isCa) return 'replaced: it is a CA certificate';
  const missing = policy.dnsNames.filter((name) => !serving.dnsNames.includes(name));
  if (missing.length > 0) return `replaced: it lacks the names ${missing.join(', ')}`;
  if (!trusted.some((ca) => signedBy(serving.pem, ca.pem))) return 'replaced: no CA in the bundle signed it';
  if (now >= serving.notAfter) return 'replaced: expired';
  if (now >= renewalPoint(serving)) return 'renewed: less than a third of its lifetime left';
  return undefined;
}
