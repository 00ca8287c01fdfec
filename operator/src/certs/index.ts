export {
  startCertificateManager,
  serviceDnsNames,
  type CertificateManager,
  type CertificateManagerOptions,
} from './manager.js';
export { systemClock, type Clock } from './clock.js';
export { fixedTlsSource, type TlsMaterial, type TlsSource } from './source.js';
export { createCa, issueServingCertificate, type KeyPair } from './x509.js';
