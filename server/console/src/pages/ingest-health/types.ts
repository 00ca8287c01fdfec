import type { InferResponseType } from 'hono/client';
import type { ingestHealthClient } from '../../api/typed';

/** `GET /control-plane/ingest/health` as the server's schema declares it, through the typed client. */
export type IngestHealth = InferResponseType<typeof ingestHealthClient.index.$get, 200>;
export type Refusal = IngestHealth['refusals'][number];
export type SdkDrop = IngestHealth['sdk_drops'][number];
