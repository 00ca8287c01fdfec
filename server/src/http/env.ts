import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import type { RefusalCounter } from '../ingest/refusals/counter';
import type { LimitServices } from '../limits/start';
import type { TelemetryWriter } from '../ingest/writer';
import type { Symbolicator } from '../sourcemaps/types';
import type { KeyInfo } from '../projects/keys-store';
import type { SessionPerson } from '../auth/console-sessions';
import type { Permission } from '../auth/roles';
import type { Mailer } from '../auth/mailer';

/** Who makes a request: a machine key, or a person through their console session. */
export type Actor = { kind: 'key'; key: KeyInfo } | { kind: 'person'; person: SessionPerson };

/** The caller a key or a console session identified: every query and write is confined to this project. */
export interface Caller {
  tenantId: string;
  projectId: string;
  actor: Actor;
  /** What the key's scope or the person's role allows (auth/roles.ts). */
  permissions: ReadonlySet<Permission>;
}

/** How histories and the audit log name an actor: `key:<name>` or the person's e-mail. */
export const actorLabel = (actor: Actor): string =>
  actor.kind === 'key' ? `key:${actor.key.name}` : actor.person.email;

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
  /** Ingest rate limits, quotas, usage and spike protection (docs/governance.md, "Limits"). */
  limits: LimitServices;
  /** The server's own mail (password resets, invitations) when SVC_SMTP_URL is set. */
  mailer?: Mailer;
}

/** Why a presented key was refused, and the key when it exists (revoked, expired, of another scope). */
export interface KeyRefusal {
  reason: 'missing' | 'unknown' | 'revoked' | 'expired' | 'wrong_scope';
  key?: KeyInfo;
}

/**
 * What a route tells the audit log about its change, beyond what the request shows (audit/record-request.ts): the
 * changed fields before and after (never a secret), and the target when the path does not name it.
 */
export interface AuditRefinement {
  before?: unknown;
  after?: unknown;
  target?: { type: string; id: string } | null;
}

export type AppEnv = { Variables: { caller: Caller; keyRefusal: KeyRefusal; audit?: AuditRefinement } };
