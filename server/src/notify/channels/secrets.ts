import type { ChannelType } from '../kinds/types';

/**
 * Where each secret a kind keeps (its `secrets` key) is written in a channel's `config`, e.g. the e-mail kind's
 * `smtp_password` is `config.smtp.password`. An edit that leaves such a field out keeps the stored secret, and the
 * listing names the fields that are set without showing them.
 */
const SECRET_FIELDS: Readonly<Record<ChannelType, Readonly<Record<string, readonly string[]>>>> = {
  webhook: { secret: ['secret'] },
  chat: { webhook_url: ['webhook_url'] },
  teams: { webhook_url: ['webhook_url'] },
  email: { smtp_password: ['smtp', 'password'] },
  sms: {},
  voice: {},
};

type Stored = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The secret fields of the channel that hold a value, as config paths (`secret`, `smtp.password`). */
export function secretsSet(type: ChannelType, secrets: Stored): string[] {
  return Object.entries(SECRET_FIELDS[type])
    .filter(([key]) => secrets[key] !== null && secrets[key] !== undefined)
    .map(([, path]) => path.join('.'));
}

/**
 * The edited `config` with every secret field it leaves out filled from the stored secrets, for the kind to validate as
 * on creation. A field given (a new value, or null to clear it where the kind allows) wins. Parts of the path that are
 * not objects are left for the kind's validation to name.
 */
export function withKeptSecrets(
  type: ChannelType,
  config: Record<string, unknown>,
  secrets: Stored,
): Record<string, unknown> {
  const merged = structuredClone(config);
  for (const [key, path] of Object.entries(SECRET_FIELDS[type])) {
    const value = secrets[key];
    if (value === null || value === undefined) continue;
    let parent: unknown = merged;
    for (const step of path.slice(0, -1)) parent = isObject(parent) ? parent[step] : undefined;
    const leaf = path[path.length - 1]!;
    if (isObject(parent) && !(leaf in parent)) parent[leaf] = value;
  }
  return merged;
}
