import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The address a request came from, for sign-in throttling and the audit log: the socket's peer. A proxy in front of
 * the server shows as itself (docs/teams.md says so); `null` where there is no socket (requests made in-process).
 */
export function clientAddress(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
