import type { InferResponseType } from 'hono/client';
import { meClient } from './typed';

/** `GET /control-plane/me`: who the key belongs to and what the server can do; the console signs in with it. */
export type Me = InferResponseType<ReturnType<typeof meClient>['index']['$get'], 200>;

/** Asks who the key is (the tab's, or `key` at sign-in), through the typed client. */
export async function fetchMe(key?: string): Promise<Me> {
  const res = await meClient(key).index.$get();
  // Error answers never get here: the client's fetch throws them as ApiError, so the body is the 200 one.
  return (await res.json()) as Me;
}

/** Whether the signed-in key may change things (a `read` key only looks). */
export const canWrite = (me: Me) => me.key.scope !== 'read';
