/**
 * Keeps the MutatingWebhookConfiguration's caBundle equal to the trusted CAs on each check, logging a problem (a
 * missing configuration, a missing permission) when it starts or changes and once when it is over, not every minute.
 */
import { describeApiError } from '../kube/errors.js';
import type { Logger } from '../log.js';
import type { CaBundleSync } from './ca-bundle.js';

export interface BundleSyncOptions {
  /** The configuration's name, for the log lines. */
  configurationName: string;
  /** Patches the caBundle to `bundlePem` where it differs (syncCaBundle with its API client). */
  sync(bundlePem: string): Promise<CaBundleSync>;
  log: Logger['log'];
}

/** Returns the sync to run on each check: never rejects, a problem is logged and the next check tries again. */
export function caBundleSyncer(options: BundleSyncOptions): (bundlePem: string, trustedCas: number) => Promise<void> {
  const { configurationName, log } = options;
  let lastProblem: string | undefined;
  return async (bundlePem, trustedCas) => {
    let problem: string | undefined;
    try {
      const result = await options.sync(bundlePem);
      if (result.outcome === 'patched') {
        log('info', `caBundle of MutatingWebhookConfiguration ${configurationName} updated`, {
          webhooks: result.webhooks,
          trustedCas,
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
  };
}
