import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../server/src/clock';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { whereabouts } from '../../server/src/me/store';
import { addAlias, listApps, registerApp, removeAlias } from '../../server/src/projects/apps-store';
import { checkKey } from '../../server/src/projects/keys-store';
import { checkName } from '../../server/src/projects/names';
import { createProvisionedProject, DEFAULT_APP_NAME } from '../../server/src/projects/provision';
import { anyTenant, createTenant, findProject, listProjects } from '../../server/src/projects/store';
import { firstData } from '../../server/src/setup/store';
import { DomainError } from '../../server/src/shared/domain-errors';
import { domainRefusal } from '../support/refusal';

describe('projects stores', () => {
  let database: DatabaseHandle;
  // A clock that moves: projects are listed in creation order, and two made at the same millisecond would be listed in
  // the order of their random ids.
  let nowMs = Date.UTC(2026, 0, 1);
  const clock: Clock = { now: () => nowMs++ };
  beforeAll(async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database);
  });
  afterAll(async () => database.db.destroy());

  it('provisions a project with its default app and keys, names unique in the tenant', async () => {
    const { db } = database;
    expect(await anyTenant(db)).toBe(false);
    const tenantId = await createTenant(db, clock, 'acme');
    expect(await anyTenant(db)).toBe(true);
    const created = await createProvisionedProject(db, clock, tenantId, 'shop');
    expect(created.appName).toBe(DEFAULT_APP_NAME);
    expect(await findProject(db, created.project.id, tenantId)).toEqual(created.project);
    expect(await findProject(db, created.project.id, 'another tenant')).toBeUndefined();
    expect((await listProjects(db, tenantId)).map((p) => p.name)).toEqual(['shop']);
    const check = await checkKey(db, clock, created.controlKey.key, ['control']);
    expect(check.ok).toBe(true);

    const taken = await domainRefusal(() => createProvisionedProject(db, clock, tenantId, 'shop'));
    expect([taken.kind, taken.code, taken.message, taken.details]).toEqual([
      'conflict',
      'name_taken',
      'a project named "shop" already exists',
      { field: 'name' },
    ]);
    // The failed creation left nothing behind.
    expect(await listProjects(db, tenantId)).toHaveLength(1);
  });

  it('refuses app names and aliases that are taken or absent with domain errors', async () => {
    const { db } = database;
    const tenantId = await createTenant(db, clock, 'apps');
    const { project } = await createProvisionedProject(db, clock, tenantId, 'p');
    await registerApp(db, clock, project.id, 'checkout');
    await addAlias(db, clock, project.id, 'checkout', 'checkout-v2');
    const apps = await listApps(db, project.id);
    expect(apps.find((a) => a.name === 'checkout')?.aliases).toEqual(['checkout-v2']);
    const taken = await domainRefusal(() => registerApp(db, clock, project.id, 'checkout-v2'));
    expect([taken.kind, taken.code]).toEqual(['conflict', 'name_taken']);
    expect(taken.message).toBe('"checkout-v2" is already an app name or alias in this project');
    const noApp = await domainRefusal(() => addAlias(db, clock, project.id, 'cart', 'c'));
    expect([noApp.kind, noApp.code, noApp.message]).toEqual([
      'not_found',
      'not_found',
      'no app named "cart" in this project',
    ]);
    const noAlias = await domainRefusal(() => removeAlias(db, project.id, 'checkout', 'nope'));
    expect(noAlias.message).toBe('"nope" is not an alias of "checkout"');
    await removeAlias(db, project.id, 'checkout', 'checkout-v2');
  });

  it('names a bad name and its field', () => {
    let thrown: unknown;
    try {
      checkName('key name', ' padded', 'name');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    const error = thrown as DomainError;
    expect([error.kind, error.code, error.message, error.details]).toEqual([
      'invalid',
      'invalid_request',
      'key name must not have leading or trailing spaces or control characters',
      { field: 'name' },
    ]);
  });

  it("tells a key where it is: its project's names, apps and, for an admin key, the tenant's projects", async () => {
    const { db } = database;
    const tenantId = await createTenant(db, clock, 'where');
    const first = await createProvisionedProject(db, clock, tenantId, 'one');
    await createProvisionedProject(db, clock, tenantId, 'two');
    const projectId = first.project.id;
    const asProjectKey = await whereabouts(db, { projectId, tenantId, switches: false, limitedTo: null });
    expect(asProjectKey).toEqual({
      project: { id: projectId, name: 'one' },
      tenant: { id: tenantId, name: 'where' },
      apps: [{ id: expect.any(String), name: DEFAULT_APP_NAME }],
      github: false,
      projects: null,
    });
    const asAdmin = await whereabouts(db, { projectId, tenantId, switches: true, limitedTo: null });
    expect(asAdmin.projects?.map((p) => p.name)).toEqual(['one', 'two']);
    const asLimitedMember = await whereabouts(db, { projectId, tenantId, switches: true, limitedTo: [projectId] });
    expect(asLimitedMember.projects?.map((p) => p.name)).toEqual(['one']);
  });

  it('has no first data for a project that received nothing', async () => {
    const { db } = database;
    const tenantId = await createTenant(db, clock, 'empty');
    const { project } = await createProvisionedProject(db, clock, tenantId, 'quiet');
    expect(await firstData(db, project.id)).toBeNull();
  });
});
