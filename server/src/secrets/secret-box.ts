import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Encryption of stored secrets (channel and integration credentials) and signatures of the links the server hands out
 * (acknowledge, resolve, incident pages). Both keys derive from the server's secret key (`--secret-key`), so a stolen
 * database alone reveals no credential.
 */
export interface SecretBox {
  /** AES-256-GCM: `v1.<base64url(iv | tag | ciphertext)>` of the JSON of `value`. */
  seal(value: unknown): string;
  /** Throws when the text was not sealed with this key or was altered. */
  open<T>(sealed: string): T;
  /** HMAC-SHA256 of `message`, base64url. */
  sign(message: string): string;
  /** Constant-time check of a {@link sign} result. */
  verify(message: string, signature: string): boolean;
}

const derive = (secret: string, purpose: string): Buffer =>
  createHash('sha256').update(`svc:${purpose}:`).update(secret).digest();

export function createSecretBox(secretKey: string): SecretBox {
  if (secretKey.length < 32) throw new Error('the secret key must be at least 32 characters');
  const encryptionKey = derive(secretKey, 'seal');
  const signingKey = derive(secretKey, 'sign');
  const sign = (message: string) => createHmac('sha256', signingKey).update(message).digest('base64url');
  return {
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    },
    open<T>(sealed: string): T {
      if (!sealed.startsWith('v1.')) throw new Error('not a sealed secret');
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as T;
    },
    sign,
    verify(message, signature) {
      const expected = Buffer.from(sign(message));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}

/** A new random secret key, for a server started without one (server/src/secrets/key-file.ts). */
export const generateSecretKey = (): string => randomBytes(32).toString('base64url');
