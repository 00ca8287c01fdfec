/** The serving key and certificate an HTTPS server presents, and word when they change (rotation). */
export interface TlsMaterial {
  /** PEM private key (PKCS#8). */
  key: string;
  /** PEM serving certificate. */
  cert: string;
  /** PEM bundle of the CAs clients should trust (what `caBundle` holds). */
  ca: string;
}

export interface TlsSource {
  current(): TlsMaterial;
  /** `listener` is called with the new material after each change; the returned function unsubscribes. */
  onChange(listener: (material: TlsMaterial) => void): () => void;
}

/** A source that never changes: for a certificate made once (benchmarks, tests, a cert mounted from elsewhere). */
export function fixedTlsSource(material: TlsMaterial): TlsSource {
  return { current: () => material, onChange: () => () => undefined };
}
