import { createServer } from 'node:net';

/**
 * A TCP port nothing listens on, for the demo's "network failure" button: one the system just handed out and that was
 * released at once. Another process could take it later; the button then shows whatever answers, which is harmless.
 */
export function findClosedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const address = probe.address();
      probe.close(() =>
        address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port assigned')),
      );
    });
  });
}
