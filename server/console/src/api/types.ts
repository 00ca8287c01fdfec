import { parseResponse, type InferResponseType } from 'hono/client';
import { meClient } from './typed';

/** `GET /control-plane/me`: who the key belongs to and what the server can do; the console signs in with it. */
export type Me = InferResponseType<ReturnType<typeof meClient>['index']['$get'], 200>;

/** Asks who the key is (the tab's, or `key` at sign-in), through the typed client. */
export async function fetchMe(key?: string): Promise<Me> {
  // Error answers never get here: the client's fetch throws them as ApiError.
  return parseResponse(meClient(key).index.$get());
}

type Permission = Me['permissions'][number];

/**
 * Whether the key or person may do what `permission` covers (docs/teams.md, "Roles"): the console hides what they may
 * not, and the server refuses it anyway.
 */
export const can = (me: Me, permission: Permission) => me.permissions.includes(permission);
