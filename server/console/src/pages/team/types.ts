import type { InferResponseType } from 'hono/client';
import type { Me } from '../../api/types';
import type {
  auditClient,
  invitationsClient,
  keysClient,
  membersClient,
  mySessionsClient,
  organisationClient,
} from '../../api/typed';

/** What the organisation's routes answer (members, keys, audit, my sessions, itself), from the server's schemas. */
export type Member = InferResponseType<(typeof membersClient)['index']['$get'], 200>['data'][number];
export type Invitation = InferResponseType<(typeof invitationsClient)['index']['$get'], 200>['data'][number];
export type NewInvitation = InferResponseType<(typeof invitationsClient)['index']['$post'], 201>;
export type Key = InferResponseType<(typeof keysClient)['index']['$get'], 200>['data'][number];
export type NewKey = InferResponseType<(typeof keysClient)['index']['$post'], 201>;
export type AuditEntry = InferResponseType<(typeof auditClient)['index']['$get'], 200>['data'][number];
export type MySession = InferResponseType<(typeof mySessionsClient)['index']['$get'], 200>['data'][number];
export type Organisation = InferResponseType<(typeof organisationClient)['index']['$get'], 200>;
export type SsoPolicy = Organisation['sso']['policy'];

export type Role = Member['role'];
/** Strongest first, as the server ranks them (server/src/auth/roles.ts). */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly Role[];

/** The role the console acts with: a person's; an admin key manages as an admin does. */
export const myRole = (me: Me): Role => me.person?.role ?? (me.key?.scope === 'admin' ? 'admin' : 'viewer');

/** Roles `me` may grant: those at or below their own (only an owner grants owner). */
export const grantableRoles = (me: Me): readonly Role[] => ROLES.slice(ROLES.indexOf(myRole(me)));

/** Whether `me` may change or remove a member of `role`: an owner's row is an owner's to change. */
export const mayEdit = (me: Me, role: Role): boolean => role !== 'owner' || myRole(me) === 'owner';
