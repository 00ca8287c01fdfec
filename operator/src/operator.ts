/**
 * The operator process (Deployment `svc-zero-operator` in svc-system): the controller (watches, status, detection
 * logs), the webhook's certificate manager (Secret, rotation, caBundle) and the HTTPS admission webhook, which asks
 * the controller's caches. Settings arrive through the environment the manifests write (manifests/operator-env.ts).
 */
import { startWebhookServer, type WebhookServer } from './admission/index.js';
import { startCertificateManager, type CertificateManager } from './certs/index.js';
import { startController, type Controller } from './controller/index.js';
import { locateKubeConfig } from './kube/index.js';
import { createLogger, parseLogLevel, type Logger } from './log.js';
import { DEFAULT_VALUES, readOperatorEnv, ZERO_VERSION } from './manifests/index.js';
import { SYSTEM_NAMESPACE } from './markers.js';
import type { OperatorSettings } from './resource/types.js';

export interface OperatorOptions {
  /** The process environment (tests pass their own). */
  env: Record<string, string | undefined>;
  /** A kubeconfig path; in a pod the service account is used. */
  kubeconfig?: string;
  logger?: Logger;
  /** Host the webhook listens on (default all interfaces). */
  host?: string;
}

export interface RunningOperator {
  webhook: WebhookServer;
  controller: Controller;
  certificates: CertificateManager;
  /** Stops accepting admissions first, then the watches: a pod created meanwhile is admitted uninstrumented (Ignore). */
  stop(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const env = readOperatorEnv(options.env, DEFAULT_VALUES);
  const level = parseLogLevel(env.logLevel);
  const logger = options.logger ?? createLogger({ level: level ?? 'info' });
  if (level === undefined)
    logger.warn(`log level "${env.logLevel}" is not one of debug, info, warn, error; using info`);
  const { kubeConfig, source } = locateKubeConfig({ kubeconfig: options.kubeconfig, env: options.env });
  const settings: OperatorSettings = {
    version: ZERO_VERSION,
    images: env.images,
    ebpfMemoryLimit: env.ebpfMemoryLimit,
    defaultIngestUrl: env.ingestUrl,
  };
  logger.info(`svc-zero operator ${ZERO_VERSION} starting`, {
    kubeconfig: source,
    webhookPort: env.webhookPort,
    pod: env.podName,
  });

  // Certificates first: the webhook cannot serve without them, and a failure here (RBAC, a missing Secret) is fatal
  // and said plainly rather than leaving a pod that is Running but never called.
  const certificates = await startCertificateManager({
    kubeConfig,
    log: logger.child({ component: 'certificates' }).log,
    namespace: env.podNamespace ?? SYSTEM_NAMESPACE,
  });
  const controller = await startController({ kubeConfig, log: logger, settings });
  let webhook: WebhookServer;
  try {
    webhook = await startWebhookServer({
      port: env.webhookPort,
      host: options.host,
      tls: certificates,
      lookup: controller.lookup,
      settings,
      log: logger.child({ component: 'webhook' }).log,
    });
  } catch (error) {
    certificates.stop();
    await controller.stop();
    throw error;
  }
  logger.info(`admission webhook listening on port ${webhook.port}`, { port: webhook.port });
  return {
    webhook,
    controller,
    certificates,
    async stop() {
      await webhook.close();
      certificates.stop();
      await controller.stop();
    },
  };
}
