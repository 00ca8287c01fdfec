/**
 * Certificate generation and inspection for the webhook's own small PKI: one self-signed CA (ECDSA P-256) and the
 * serving certificate it signs. Generation uses @peculiar/x509 over Node's WebCrypto; signature and key checks use
 * Node's OpenSSL-backed X509Certificate.
 */
// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which requires the Reflect metadata API before it loads.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate as OpenSslCertificate, createPrivateKey, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type PeculiarKey = Parameters<typeof x509.X509CertificateGenerator.create>[0] extends { signingKey: infer K }
  ? K
  : never;
type PeculiarKeyPair = { publicKey: PeculiarKey; privateKey: PeculiarKey };

/**
 * Certificates start this long before they are made: the API server's clock may run behind the operator's (the same
 * backdating as open-policy-agent/cert-controller).
 */
export const BACKDATE_MS = 60 * 60 * 1000;

/** A certificate and its private key, both PEM (the key PKCS#8). */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

/** What the certificate manager needs to know about one certificate. */
export interface CertificateInfo {
  pem: string;
  notBefore: number;
  notAfter: number;
  isCa: boolean;
  dnsNames: string[];
  serialNumber: string;
}

async function newKeyPair(): Promise<PeculiarKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as PeculiarKeyPair;
}

async function privateKeyPem(key: PeculiarKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key as unknown as webcrypto.CryptoKey);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') + '\n';
}

function certificatePem(certificate: x509.X509Certificate): string {
  return certificate.toString('pem').replace(/\r\n/g, '\n').trim() + '\n';
}

export async function createCa(options: { now: number; validityMs: number; commonName: string }): Promise<KeyPair> {
  const keys = await newKeyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [options.commonName] }],
    keys,
    notBefore: new Date(options.now - BACKDATE_MS),
    notAfter: new Date(options.now + options.validityMs),
    signingAlgorithm: ALGORITHM,
    extensions: [
      // pathLen 0: this CA signs serving certificates only, never another CA.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: certificatePem(certificate), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * A serving certificate for `dnsNames` (the first is also the subject's CN) signed by `ca`. It never outlives its CA,
 * so a client that trusts the CA can verify it for as long as it is valid.
 */
export async function issueServingCertificate(options: {
  ca: KeyPair;
  now: number;
  validityMs: number;
  dnsNames: readonly string[];
}): Promise<KeyPair> {
  const [commonName] = options.dnsNames;
  if (commonName === undefined) throw new Error('a serving certificate needs at least one DNS name');
  const ca = new x509.X509Certificate(options.ca.certPem);
  const caKey = (await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decodeFirst(options.ca.keyPem),
    ALGORITHM,
    false,
    ['sign'],
  )) as unknown as PeculiarKey;
  const keys = await newKeyPair();
  const certificate = await x509.X509CertificateGenerator.create({
    subject: [{ CN: [commonName] }],
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
    notBefore: new Date(options.now - BACKDATE_MS),
    notAfter: new Date(Math.min(options.now + options.validityMs, ca.notAfter.getTime())),
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // ECDSA keys sign the TLS handshake; keyEncipherment is an RSA-only usage.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // The API server (Go) checks the SAN only; the CN is for people reading the certificate.
      new x509.SubjectAlternativeNameExtension(options.dnsNames.map((value) => ({ type: 'dns' as const, value }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: certificatePem(certificate), keyPem: await privateKeyPem(keys.privateKey) };
}

/** Every certificate in a PEM bundle, in order; blocks that do not parse are left out. */
export function parseCertificates(pem: string): CertificateInfo[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const parsed: CertificateInfo[] = [];
  for (const block of blocks) {
    try {
      const certificate = new x509.X509Certificate(block);
      const names = certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [];
      parsed.push({
        pem: certificatePem(certificate),
        notBefore: certificate.notBefore.getTime(),
        notAfter: certificate.notAfter.getTime(),
        isCa: certificate.getExtension(x509.BasicConstraintsExtension)?.ca === true,
        dnsNames: names.filter((name) => name.type === 'dns').map((name) => name.value),
        serialNumber: certificate.serialNumber,
      });
    } catch {
      // A damaged block is as good as missing: the manager replaces what it cannot read.
    }
  }
  return parsed;
}

/** True when `keyPem` is the private key of the certificate. */
export function keyMatches(certPem: string, keyPem: string): boolean {
  try {
    return new OpenSslCertificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** True when `issuerPem`'s key signed `certPem` and names match (validity dates are the caller's business). */
export function signedBy(certPem: string, issuerPem: string): boolean {
  try {
    const certificate = new OpenSslCertificate(certPem);
    const issuer = new OpenSslCertificate(issuerPem);
    return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** True when `keyPem` is a P-256 key this module can sign with. */
export function isSigningKey(keyPem: string): boolean {
  try {
    const key = createPrivateKey(keyPem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}
