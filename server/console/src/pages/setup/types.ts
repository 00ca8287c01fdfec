import type { InferResponseType } from 'hono/client';
import type { setupClient } from '../../api/typed';

/** `GET /control-plane/setup` as the server's schema declares it, through the typed client. */
export type Setup = InferResponseType<typeof setupClient.index.$get, 200>;
export type FirstData = NonNullable<Setup['first_data']>;
