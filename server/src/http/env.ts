import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import type { RefusalCounter } from '../ingest/refusals/counter';
import type { TelemetryWriter } from '../ingest/writer';
import type { Symbolicator } from '../sourcemaps/types';
import type { KeyInfo } from '../projects/keys-store';

/** The caller a key identified: every query and write is confined to this project. */
export interface Caller {
  tenantId: string;
  projectId: string;
  key: KeyInfo;
}

export interface Services {
  db: Kysely<Database>;
  /** Which database `db` is: the few queries that read into JSON columns differ. */
  dialect: DialectName;
  /** Where ingest stores validated telemetry. */
  writer: TelemetryWriter;
  clock: Clock;
  /** Largest accepted request body, bytes, after decompression. */
  bodyLimit: number;
  /** Base URL for links the server hands out. */
  publicUrl: string;
  log: (line: string) => void;
  /** Original positions of error stacks, from the project's uploaded source maps. */
  symbolicator: Symbolicator;
  /** Refused ingest requests, counted per project and reason (docs/ingest.md, "Ingest health"). */
  refusals: RefusalCounter;
}

/** Why a presented key was refused, and the key when it exists (revoked, expired, of another scope). */
export interface KeyRefusal {
  reason: 'missing' | 'unknown' | 'revoked' | 'expired' | 'wrong_scope';
  key?: KeyInfo;
}

export type AppEnv = { Variables: { caller: Caller; keyRefusal: KeyRefusal } };
