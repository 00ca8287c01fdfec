import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { DomainError } from '../shared/domain-errors';

/** Failed sign-ins are counted in fixed windows of this length (docs/teams.md, "Sign-in"). */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Attempts past these in one window are refused until it ends, right password or not. */
export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

const windowOf = (now: number) => now - (now % THROTTLE_WINDOW_MS);
const accountSubject = (email: string) => `account:${email}`;
const addressSubject = (address: string) => `address:${address}`;

/** Adds one to a subject's count in the window and returns the new count: one statement, atomic on either database. */
async function bump(db: Kysely<Database>, subject: string, windowMs: number): Promise<number> {
  const row = await db
    .insertInto('sign_in_failures')
    .values({ subject, window_ms: windowMs, count: 1 })
    .onConflict((oc) =>
      oc.columns(['subject', 'window_ms']).doUpdateSet({ count: sql<number>`sign_in_failures.count + 1` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  await db.deleteFrom('sign_in_failures').where('subject', '=', subject).where('window_ms', '<', windowMs).execute();
  return Number(row.count);
}

/**
 * Counts a sign-in attempt against the account and the address before the password is checked, and refuses it (429,
 * `Retry-After` at the window's end) once either is over its limit. Counting first, in the database, is what makes
 * the limits hold for parallel attempts and across replicas; `signInSucceeded` takes a successful attempt back.
 */
export async function reserveAttempt(
  db: Kysely<Database>,
  clock: Clock,
  email: string,
  address: string | null,
): Promise<void> {
  const now = clock.now();
  const windowMs = windowOf(now);
  const retryAfterSeconds = Math.ceil((windowMs + THROTTLE_WINDOW_MS - now) / 1000);
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const account = await bump(db, accountSubject(email), windowMs);
  const fromAddress = address === null ? 0 : await bump(db, addressSubject(address), windowMs);
  const over =
    account > ACCOUNT_LIMIT ? 'for this account' : fromAddress > ADDRESS_LIMIT ? 'from this address' : undefined;
  if (over === undefined) return;
  throw new DomainError(
    'busy',
    'throttled',
    `too many failed sign-ins ${over}: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
    undefined,
    retryAfterSeconds,
  );
}

/** A right password: the account's failures are forgotten and the attempt no longer counts against the address. */
export async function signInSucceeded(
  db: Kysely<Database>,
  clock: Clock,
  email: string,
  address: string | null,
): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('subject', '=', accountSubject(email)).execute();
  if (address === null) return;
  await db
    .updateTable('sign_in_failures')
    .set({ count: sql<number>`count - 1` })
    .where('subject', '=', addressSubject(address))
    .where('window_ms', '=', windowOf(clock.now()))
    .where('count', '>', 0)
    .execute();
}
