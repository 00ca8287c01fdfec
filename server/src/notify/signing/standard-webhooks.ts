import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks (standardwebhooks.com) secrets: `whsec_` and the base64 of 24 to 64 random bytes. */
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The key bytes of a secret, or undefined when it is not a Standard Webhooks secret. */
export function webhookSecretKey(secret: string): Buffer | undefined {
  const match = SECRET.exec(secret);
  if (!match) return undefined;
  const key = Buffer.from(match[1]!, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/**
 * The three Standard Webhooks headers for one message: `webhook-id` (the same on every retry, so receivers can drop
 * duplicates), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`). Any Standard Webhooks library verifies them.
 */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
