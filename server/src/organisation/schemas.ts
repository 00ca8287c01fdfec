import { z } from '@hono/zod-openapi';
import { isEmailDomain } from '../auth/oidc/settings';
import { ROLES } from '../auth/roles';
import { Time } from '../http/schemas';
import { nameSchema } from '../projects/names';

/** Bounds of a policy: a list a person can read through, and what a sign-in compares at once. */
const MAX_DOMAINS = 100;
const MAX_GROUP_ROLES = 100;
const MAX_GROUP_NAME = 256;

const RoleName = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
const DefaultRole = z.enum([...ROLES, 'none'], { error: `must be one of ${[...ROLES, 'none'].join(', ')}` }).openapi({
  description: 'The role of a new member none of whose groups is mapped; `none` lets only mapped groups in',
});

const Domain = z
  .string()
  .max(253)
  .transform((domain) => domain.toLowerCase())
  .refine(isEmailDomain, { message: 'must be an e-mail domain such as example.com' });

const GroupRoles = z
  .record(z.string().min(1).max(MAX_GROUP_NAME), RoleName, {
    error: (issue) =>
      issue.code === 'invalid_key' ? `is not a group name: 1 to ${MAX_GROUP_NAME} characters` : undefined,
  })
  .refine((roles) => Object.keys(roles).length <= MAX_GROUP_ROLES, {
    message: `must have at most ${MAX_GROUP_ROLES} mappings`,
  })
  .openapi({ description: 'Group name (exactly as the provider sends it) to the role it grants; the highest wins' });

/** The policy as the organisation answers it. */
export const SsoPolicySchema = z
  .object({
    allowed_domains: z.array(z.string()).openapi({ description: 'E-mail domains that may sign in; empty: any' }),
    group_roles: z.record(z.string(), RoleName),
    default_role: DefaultRole,
  })
  .openapi('SsoPolicy');

export const OrganisationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: Time,
    sso: z.object({
      enabled: z.boolean().openapi({ description: 'Whether the server has single sign-on (SVC_OIDC_ISSUER)' }),
      name: z.string().nullable().openapi({ description: "The sign-in button's label; null when not enabled" }),
      issuer: z.string().nullable().openapi({ description: "The provider's issuer URL; null when not enabled" }),
      policy: SsoPolicySchema.openapi({ description: 'The policy sign-ins go by' }),
      policy_source: z.enum(['environment', 'organisation']).openapi({
        description: "`organisation`: the organisation's own policy; `environment`: the SVC_OIDC_* settings'",
      }),
    }),
  })
  .openapi('Organisation');

/** `PATCH /control-plane/organisation`: what it leaves out stays as it is. */
export const OrganisationChangeSchema = z.strictObject({
  name: nameSchema(100).optional(),
  sso_policy: z
    .strictObject({
      allowed_domains: z.array(Domain).max(MAX_DOMAINS).optional(),
      group_roles: GroupRoles.optional(),
      default_role: DefaultRole.optional(),
    })
    .nullable()
    .optional()
    .openapi({
      description:
        "Fields given replace the policy's, those left out keep the policy in force (the stored one, else the " +
        "environment's); null removes the organisation's policy, so the SVC_OIDC_* settings apply again",
    }),
});
