import type { Kysely } from 'kysely';
import { recordAudit, type AuditActor } from '../../audit/store';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import { firstOrganisation } from '../../organisation/store';
import type { Role } from '../roles';
import { findUserByEmail, firstMembership, insertMembership, insertUser, type UserRow } from '../users-store';
import { OidcError } from './errors';
import type { OidcIdentity } from './identity';
import type { OidcSettings } from './settings';

/** Where a single sign-on lands: the person's account and the organisation their session opens in. */
export interface Admitted {
  userId: string;
  tenantId: string;
}

/** What the sign-in is told besides the database: the request's address (for the audit log) and the server log. */
export interface AdmitContext {
  address: string | null;
  log: (line: string) => void;
}

/** The operation audit entries of single sign-on are recorded under. */
const OPERATION = 'GET /auth/oidc/callback';

/** `issuer|sub`: the provider's subject is unique per issuer only. */
const subjectOf = (settings: OidcSettings, identity: OidcIdentity) =>
  `${settings.issuer.href.replace(/\/+$/, '')}|${identity.subject}`;

/**
 * The account of the person who signed in: the one linked to their subject; else the one with their e-mail address,
 * linked now only when the provider vouches for the address (an unverified claim could name anyone's); else a new one.
 */
async function accountOf(
  db: Kysely<Database>,
  clock: Clock,
  subject: string,
  identity: OidcIdentity,
): Promise<UserRow> {
  const linked = await db.selectFrom('users').selectAll().where('oidc_subject', '=', subject).executeTakeFirst();
  if (linked) return linked;
  const byEmail = await findUserByEmail(db, identity.email);
  if (!byEmail) {
    const name = identity.name ?? identity.email.slice(0, identity.email.indexOf('@'));
    return insertUser(db, clock, { email: identity.email, name, passwordHash: null, oidcSubject: subject });
  }
  if (!identity.emailVerified) {
    throw new OidcError(
      'oidc_email_unverified',
      `An account with ${identity.email} exists, but the identity provider has not verified that this address is ` +
        `yours. Verify it at the provider, or sign in with your password.`,
    );
  }
  if (byEmail.oidc_subject !== null) {
    throw new OidcError(
      'oidc_account_conflict',
      `The account ${identity.email} is linked to another identity of the provider. Ask an administrator to check it.`,
    );
  }
  await db.updateTable('users').set({ oidc_subject: subject }).where('id', '=', byEmail.id).execute();
  return { ...byEmail, oidc_subject: subject };
}

async function ownerCount(db: Kysely<Database>, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

interface Change {
  db: Kysely<Database>;
  clock: Clock;
  settings: OidcSettings;
  context: AdmitContext;
  user: UserRow;
  tenantId: string;
}

function audit(change: Change, before: Role | null, after: Role): Promise<void> {
  const { settings, user } = change;
  const actor: AuditActor = { kind: 'system', id: 'oidc', label: `single sign-on (${settings.issuer.host})` };
  return recordAudit(change.db, change.clock, {
    tenantId: change.tenantId,
    projectId: null,
    actor,
    operation: OPERATION,
    target: { type: 'member', id: user.id },
    changes: { ...(before === null ? {} : { before: { role: before } }), after: { email: user.email, role: after } },
    address: change.context.address,
    status: 302,
  });
}

/**
 * A mapped group re-applies its role at each sign-in (the provider's groups are the source of truth for those in
 * them), but never demotes the organisation's last owner. The default role only ever applies to a new membership.
 */
async function reapplyGroupRole(change: Change, current: Role, mapped: Role): Promise<void> {
  if (mapped === current) return;
  const { db, tenantId, user } = change;
  if (current === 'owner' && (await ownerCount(db, tenantId)) <= 1) {
    change.context.log(
      `single sign-on: ${user.email} stays owner of organisation ${tenantId} (the last owner); their groups map to ${mapped}`,
    );
    return;
  }
  await db
    .updateTable('memberships')
    .set({ role: mapped })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', user.id)
    .execute();
  await audit(change, current, mapped);
}

/** The membership the sign-in opens a session in; created just in time when the identity's role allows. */
async function membershipFor(change: Change, identity: OidcIdentity): Promise<string> {
  const { db, clock, settings, user, tenantId } = change;
  const groupRole = identity.groups.some((group) => settings.groupRoles.has(group)) ? identity.role : null;
  const current = await db
    .selectFrom('memberships')
    .select('role')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (current) {
    if (groupRole !== null) await reapplyGroupRole(change, current.role, groupRole);
    return tenantId;
  }
  if (identity.role === null) {
    // A member of another organisation only (invited there) signs in to it, as with a password.
    const elsewhere = await firstMembership(db, user.id);
    if (elsewhere) return elsewhere.tenant_id;
    throw new OidcError(
      'oidc_not_member',
      `${user.email} is not a member of this organisation, and none of your groups grants access. ` +
        `Ask an administrator to invite you or to add you to a group that does.`,
    );
  }
  await insertMembership(db, clock, { tenantId, userId: user.id, role: identity.role });
  await audit(change, null, identity.role);
  return tenantId;
}

/**
 * The account and membership of a person the provider signed in (docs/teams.md, "Single sign-on"): found by their
 * subject, linked by a verified e-mail address, or created; a member of the default organisation just in time when a
 * mapped group or the default role grants a role. One transaction, with the audit entries of what it changed.
 */
export function admit(
  db: Kysely<Database>,
  clock: Clock,
  settings: OidcSettings,
  identity: OidcIdentity,
  context: AdmitContext,
): Promise<Admitted> {
  return db.transaction().execute(async (tx) => {
    const tenantId = (await firstOrganisation(tx))?.id;
    const user = await accountOf(tx, clock, subjectOf(settings, identity), identity);
    if (tenantId === undefined) throw new Error('the server has no organisation yet');
    const change: Change = { db: tx, clock, settings, context, user, tenantId };
    return { userId: user.id, tenantId: await membershipFor(change, identity) };
  });
}
