import { generateWebhookSecret, signWebhook, webhookSecretKey } from '../signing/standard-webhooks';
import { configObject, invalidField, webhookUrl } from './config-fields';
import { outcomeOfAnswer, outcomeOfFailure } from './outcome';
import type { ChannelKind } from './types';

interface WebhookConfig {
  url: string;
}
interface WebhookSecrets {
  secret: string;
  /** True when the server made the secret: the creation answer shows it once. */
  generated?: boolean;
}

/** SPEC 3.1 and 8: 3 retries at 1, 5 and 15 minutes; an answer slower than 10 s is a failure. */
const RETRY = { delaysMs: [60_000, 5 * 60_000, 15 * 60_000], timeoutMs: 10_000 } as const;

/**
 * `webhook`: an HTTP POST of exactly the SPEC 2.6 payload, signed with the Standard Webhooks headers. Any 2xx is
 * delivered; any other status is retried (SPEC 3.1), and so is a failed connection; a timeout (10 s) is final.
 */
export const webhookKind: ChannelKind<WebhookConfig, WebhookSecrets> = {
  type: 'webhook',
  retry: RETRY,

  async parse(input) {
    const config = configObject(input, ['url', 'secret']);
    const url = webhookUrl(config.url, 'config.url').href;
    if (config.secret === undefined)
      return { config: { url }, secrets: { secret: generateWebhookSecret(), generated: true } };
    if (typeof config.secret !== 'string' || webhookSecretKey(config.secret) === undefined) {
      throw invalidField(
        'config.secret must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 random bytes',
        'config.secret',
      );
    }
    return { config: { url }, secrets: { secret: config.secret } };
  },

  publicConfig: (config) => ({ url: config.url }),

  targets: (config) => [{ field: 'config.url', host: new URL(config.url).hostname }],

  async send({ config, secrets, notice, deliveryId, http, clock }) {
    const body = JSON.stringify(notice.payload);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'svc-notifications/1',
      ...signWebhook(webhookSecretKey(secrets.secret)!, deliveryId, Math.floor(clock.now() / 1000), body),
    };
    try {
      const answer = await http.request(config.url, { method: 'POST', headers, body, timeoutMs: RETRY.timeoutMs });
      return outcomeOfAnswer(answer, clock.now(), { retryAll: true });
    } catch (error) {
      const outcome = outcomeOfFailure(error);
      if (outcome.state === 'retry' && outcome.errorClass === 'timeout') {
        return {
          state: 'failed',
          errorClass: 'timeout',
          message: `no answer within ${RETRY.timeoutMs / 1000} s (SPEC: a slower answer counts as failed)`,
        };
      }
      return outcome;
    }
  },
};
