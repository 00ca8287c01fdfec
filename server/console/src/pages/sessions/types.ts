import type { z } from 'zod';
import type { SessionFacetsSchema, SessionSchema } from '../../../../src/sessions/schemas';

/** The sessions listing's answers, as the server's schemas (server/src/sessions/schemas.ts) declare them. */
export type SessionItem = z.output<typeof SessionSchema>;
export type SessionFacets = z.output<typeof SessionFacetsSchema>;
