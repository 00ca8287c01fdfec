import { createRoute, type z } from '@hono/zod-openapi';
import type { OidcSettings } from '../auth/oidc/settings';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { iso } from '../shared/time';
import { environmentPolicy, policyJson, type PolicyChange } from './policy';
import { OrganisationChangeSchema, OrganisationSchema } from './schemas';
import { changeOrganisation, findOrganisation, type Organisation, type OrganisationChange } from './store';

const tags = ['organisation'];

const readRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/',
  summary: 'The organisation, and the single sign-on policy sign-ins go by',
  description:
    "Whether the server has single sign-on (SVC_OIDC_*; never the client's secret), and the policy in force: the " +
    "organisation's own when it stored one (`policy_source: organisation`), else the environment's.",
  responses: { 200: jsonAnswer('The organisation', OrganisationSchema), ...errors(401, 403) },
});

const changeRoute = createRoute({
  ...needs('org.manage'),
  tags,
  middleware: [readControlJson],
  method: 'patch',
  path: '/',
  summary: 'Rename the organisation, or set or remove its single sign-on policy (owners)',
  description:
    'The policy replaces the SVC_OIDC_* allowed domains, group → role map and default role for sign-ins; fields left ' +
    "out keep the policy in force. `sso_policy: null` goes back to the environment's. One audit entry with the " +
    'changed fields before and after.',
  request: {
    body: jsonBody(OrganisationChangeSchema, {
      name: 'Acme',
      sso_policy: { allowed_domains: ['example.com'], group_roles: { 'svc-admins': 'admin' }, default_role: 'none' },
    }),
  },
  responses: { 200: jsonAnswer('The organisation', OrganisationSchema), ...errors(400, 401, 403, 413, 415) },
});

type ChangeBody = z.output<typeof OrganisationChangeSchema>;

function policyChangeOf(json: NonNullable<ChangeBody['sso_policy']>): PolicyChange {
  const { allowed_domains, group_roles, default_role } = json;
  return {
    ...(allowed_domains !== undefined && { allowedDomains: allowed_domains }),
    ...(group_roles !== undefined && { groupRoles: new Map(Object.entries(group_roles)) }),
    ...(default_role !== undefined && { defaultRole: default_role === 'none' ? null : default_role }),
  };
}

const changeOf = (body: ChangeBody): OrganisationChange => ({
  ...(body.name !== undefined && { name: body.name }),
  ...(body.sso_policy !== undefined && { ssoPolicy: body.sso_policy && policyChangeOf(body.sso_policy) }),
});

/** The fields a change named, as the audit log keeps them before and after. */
const audited = (organisation: Organisation, body: ChangeBody) => ({
  ...(body.name !== undefined && { name: organisation.name }),
  ...(body.sso_policy !== undefined && { sso_policy: organisation.ssoPolicy && policyJson(organisation.ssoPolicy) }),
});

/** `/control-plane/organisation`: the caller's organisation and its single sign-on (docs/teams.md, "Organisation"). */
export function organisationRoutes(services: Services, oidc: OidcSettings | undefined) {
  const { db } = services;
  const inForce = environmentPolicy(oidc);
  const answer = (organisation: Organisation) => ({
    id: organisation.id,
    name: organisation.name,
    created_at: iso(organisation.createdMs),
    sso: {
      enabled: oidc !== undefined,
      name: oidc?.name ?? null,
      issuer: oidc?.issuer.href ?? null,
      policy: policyJson(organisation.ssoPolicy ?? inForce),
      policy_source: organisation.ssoPolicy ? ('organisation' as const) : ('environment' as const),
    },
  });
  return createRouter()
    .openapi(readRoute, async (c) => c.json(answer(await findOrganisation(db, c.get('caller').tenantId)), 200))
    .openapi(changeRoute, async (c) => {
      const { tenantId } = c.get('caller');
      const body = c.req.valid('json');
      const { before, after } = await changeOrganisation(db, tenantId, changeOf(body), inForce);
      c.set('audit', {
        target: { type: 'organisation', id: tenantId },
        before: audited(before, body),
        after: audited(after, body),
      });
      return c.json(answer(after), 200);
    });
}
