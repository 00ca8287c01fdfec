import type { z } from 'zod';
import type { Setup as SetupSchema } from '../../../../src/setup/routes';

/** `GET /control-plane/setup` as the server's schema declares it (imported as a type only). */
export type Setup = z.output<typeof SetupSchema>;
export type FirstData = NonNullable<Setup['first_data']>;
