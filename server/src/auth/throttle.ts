import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { DomainError } from '../shared/domain-errors';

/** Failed sign-ins are counted in fixed windows of this length (docs/teams.md, "Sign-in"). */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Attempts past these in one window are refused until it ends, right password or not. */
export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

/** Reset links one account is mailed per window: more would be mail bombing, not forgetting a password. */
export const RESET_ACCOUNT_LIMIT = 3;

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

/** The window's end, as a 429 says it. */
function throttled(now: number, windowMs: number, what: string): DomainError {
  const retryAfterSeconds = Math.ceil((windowMs + THROTTLE_WINDOW_MS - now) / 1000);
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new DomainError(
    'busy',
    'throttled',
    `${what}: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
    undefined,
    retryAfterSeconds,
  );
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
  const account = await bump(db, accountSubject(email), windowMs);
  const fromAddress = address === null ? 0 : await bump(db, addressSubject(address), windowMs);
  const over =
    account > ACCOUNT_LIMIT ? 'for this account' : fromAddress > ADDRESS_LIMIT ? 'from this address' : undefined;
  if (over !== undefined) throw throttled(now, windowMs, `too many failed sign-ins ${over}`);
}

/**
 * Counts a password-reset request against the address and the account. Past ADDRESS_LIMIT from one address the
 * request is refused (429: that says nothing about any account); past RESET_ACCOUNT_LIMIT for one account it resolves
 * false, and the caller mails nothing while answering as usual, so the answer still does not tell who has an account.
 */
export async function reserveResetRequest(
  db: Kysely<Database>,
  clock: Clock,
  email: string,
  address: string | null,
): Promise<boolean> {
  const now = clock.now();
  const windowMs = windowOf(now);
  if (address !== null && (await bump(db, `reset-address:${address}`, windowMs)) > ADDRESS_LIMIT)
    throw throttled(now, windowMs, 'too many password resets asked from this address');
  return (await bump(db, `reset-account:${email}`, windowMs)) <= RESET_ACCOUNT_LIMIT;
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
