import { CONFIG_DEFAULTS } from '../config';

/**
 * Where the server is, for links printed by commands that work on the database without asking it: SVC_PUBLIC_URL,
 * else http://SVC_HOST:SVC_PORT with the server's defaults, as the server itself would say.
 */
export function expectedPublicUrl(env: NodeJS.ProcessEnv): string {
  if (env.SVC_PUBLIC_URL) return env.SVC_PUBLIC_URL.replace(/\/+$/, '');
  const host = env.SVC_HOST || CONFIG_DEFAULTS.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.SVC_PORT || CONFIG_DEFAULTS.port}`;
}
