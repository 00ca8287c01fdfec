import { invalid } from '../../shared/domain-errors';

/** A refusal of a config value, naming its field (`details.field`) for the console to point at. */
export const invalidField = (message: string, field: string) => invalid(message, 'invalid_request', { field });

/** The channel `config` as a plain object whose keys are all among `allowed`, or a 400 naming the first stray one. */
export function configObject(config: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw invalidField('config must be an object', 'config');
  }
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) {
      throw invalidField(
        `config.${key} is not a setting of this channel kind; allowed: ${allowed.join(', ')}`,
        `config.${key}`,
      );
    }
  }
  return config as Record<string, unknown>;
}

/**
 * A webhook address: an absolute http(s) URL without credentials. Hosts are not restricted (Slack-compatible servers,
 * Teams and Power Automate hosts change over time); private targets are refused when connecting, not here.
 */
export function webhookUrl(value: unknown, field: string): URL {
  const invalid = (why: string) => invalidField(`${field} ${why}`, field);
  if (typeof value !== 'string' || value.trim() === '') throw invalid('is required: the http(s) address to post to');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid('is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`must be an https URL, not ${url.protocol}`);
  if (url.username || url.password) throw invalid('must not contain credentials');
  return url;
}
