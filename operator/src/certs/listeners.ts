/**
 * Who takes the new serving certificate when it changes (the HTTPS server): each is called in turn, and one that
 * throws is logged without keeping the others from it.
 */
import type { Logger } from '../log.js';
import type { TlsMaterial } from './source.js';

export interface TlsListeners {
  add(listener: (tls: TlsMaterial) => void): () => void;
  notify(tls: TlsMaterial): void;
  clear(): void;
}

export function tlsListeners(log: Logger['log']): TlsListeners {
  const listeners = new Set<(tls: TlsMaterial) => void>();
  return {
    add(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(tls) {
      for (const listener of listeners) {
        try {
          listener(tls);
        } catch (error) {
          log('error', 'a listener failed to take the new webhook certificate', {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    },
    clear: () => listeners.clear(),
  };
}
