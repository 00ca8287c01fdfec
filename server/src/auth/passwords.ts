import { hash, verify, type Options } from '@node-rs/argon2';
import { invalid } from '../shared/domain-errors';

/**
 * argon2id with OWASP's recommended minimum (19 MiB, two passes, one lane): memory-hard, so a stolen table costs an
 * attacker memory per guess, and about 20-40 ms per sign-in here.
 */
const ARGON2: Options = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** Password rules (docs/teams.md, "Sign-in"): long enough to resist guessing, short enough to bound hashing. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** A hash of a password nobody has, verified for unknown e-mails so they take as long as known ones. */
let dummyHash: Promise<string> | undefined;

/** Refuses a password outside the rules with a 400 naming the field (`password`, or the caller's). */
export function checkPassword(password: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN)
    throw invalid(`${field} must be at least ${PASSWORD_MIN} characters`, 'invalid_request', { field });
  if (password.length > PASSWORD_MAX)
    throw invalid(`${field} must be at most ${PASSWORD_MAX} characters`, 'invalid_request', { field });
}

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) stored in `users.password_hash`. */
export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);

/**
 * Whether `password` matches `stored`. Without a stored hash (no such person, or one who only signs in through single
 * sign-on) a dummy hash is verified anyway and false returned, so the answer's timing does not tell which e-mails exist.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash('svc-no-such-account', ARGON2);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
