import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../server/src/auth/oidc/accounts';
import { roleFor, type OidcIdentity } from '../../server/src/auth/oidc/identity';
import { readOidcSettings, type OidcSettings } from '../../server/src/auth/oidc/settings';
import type { Clock } from '../../server/src/clock';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createTenant } from '../../server/src/projects/store';
import { domainRefusal } from '../support/refusal';

/**
 * Who a single sign-on admits, and with which role, as the provider's groups change between sign-ins: mapped groups
 * re-apply their role (never demoting the last owner), the default role only makes new members, and an e-mail address
 * links an existing account only when the provider verified it.
 */
describe('single sign-on accounts and memberships', () => {
  let database: DatabaseHandle;
  const clock: Clock = { now: () => Date.UTC(2026, 0, 1) };
  const lines: string[] = [];
  let settings: OidcSettings;
  let tenantId: string;

  beforeAll(async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database);
    tenantId = await createTenant(database.db, clock, 'Acme');
    settings = readOidcSettings({
      SVC_OIDC_ISSUER: 'https://id.example.com',
      SVC_OIDC_CLIENT_ID: 'svc',
      SVC_OIDC_GROUP_ROLES: 'owners=owner,admins=admin,devs=member',
    })!;
  });
  afterAll(() => database?.close());

  const identity = (subject: string, groups: string[], extra: Partial<OidcIdentity> = {}): OidcIdentity => ({
    subject,
    email: `${subject}@example.com`,
    emailVerified: true,
    name: null,
    groups,
    role: roleFor(settings, groups),
    ...extra,
  });
  const signIn = (who: OidcIdentity) =>
    admit(database.db, clock, settings, who, { address: null, log: (l) => lines.push(l) });
  const roleOf = async (userId: string) =>
    (
      await database.db
        .selectFrom('memberships')
        .select('role')
        .where('user_id', '=', userId)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow()
    ).role;
  const auditRoles = async (userId: string) =>
    (
      await database.db
        .selectFrom('audit_log')
        .select('changes')
        .where('target_id', '=', userId)
        .orderBy('id')
        .execute()
    ).map((row) => JSON.parse(row.changes) as unknown);

  it('re-applies a mapped group role at each sign-in, up and down, with an audit entry per change', async () => {
    const { userId } = await signIn(identity('ann', ['devs']));
    expect(await roleOf(userId)).toBe('member');
    await signIn(identity('ann', ['devs', 'admins']));
    expect(await roleOf(userId)).toBe('admin');
    await signIn(identity('ann', ['devs']));
    expect(await roleOf(userId)).toBe('member');
    // No mapped group: the role stays as it is (the default role only makes new members).
    await signIn(identity('ann', ['marketing']));
    expect(await roleOf(userId)).toBe('member');
    expect(await auditRoles(userId)).toEqual([
      { after: { email: 'ann@example.com', role: 'member' } },
      { before: { role: 'member' }, after: { email: 'ann@example.com', role: 'admin' } },
      { before: { role: 'admin' }, after: { email: 'ann@example.com', role: 'member' } },
    ]);
  });

  it('never demotes the last owner, and demotes an owner when another remains', async () => {
    const ola = await signIn(identity('ola', ['owners']));
    await signIn(identity('ola', ['devs']));
    expect(await roleOf(ola.userId)).toBe('owner');
    expect(lines.join('\n')).toContain('ola@example.com stays owner of organisation');
    await signIn(identity('oscar', ['owners']));
    await signIn(identity('ola', ['devs']));
    expect(await roleOf(ola.userId)).toBe('member');
  });

  it('links an existing account by e-mail only when the provider verified the address', async () => {
    const first = await signIn(identity('pat', ['devs']));
    // Another subject with the same address: unverified is refused, verified is refused too (already linked).
    const unverified = await domainRefusal(() =>
      signIn(identity('pat-2', ['devs'], { email: 'pat@example.com', emailVerified: false })),
    );
    expect(unverified.code).toBe('oidc_email_unverified');
    const linked = await domainRefusal(() => signIn(identity('pat-2', ['devs'], { email: 'pat@example.com' })));
    expect(linked.code).toBe('oidc_account_conflict');
    expect((await signIn(identity('pat', ['devs']))).userId).toBe(first.userId);
  });
});
