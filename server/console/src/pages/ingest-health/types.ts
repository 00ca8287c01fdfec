import type { z } from 'zod';
import type { Health } from '../../../../src/ingest/health-routes';

/** `GET /control-plane/ingest/health` as the server's schema declares it (imported as a type only). */
export type IngestHealth = z.output<typeof Health>;
export type Refusal = IngestHealth['refusals'][number];
export type SdkDrop = IngestHealth['sdk_drops'][number];
