import type { Context } from 'hono';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import { inOneTransaction } from '../db/request-transaction';
import type { Database } from '../db/schema';
import { clientAddress } from '../http/client-address';
import type { IncidentView } from '../incidents/types';
import { findProject } from '../projects/store';
import { recordAudit, type AuditActor } from './store';

/** An incident move from outside the control plane: who as the channel names them, and the operation as routed. */
export interface KeylessMove {
  projectId: string;
  incidentId: string;
  /** The route as it is documented: `POST /incidents/{id}/acknowledge`. */
  operation: string;
  /** A signed link's holder or a phone's keypad (`link`), a chat app's user (`chat`): no account of this server. */
  actor: AuditActor & { kind: 'link' | 'chat' };
}

/**
 * Makes an incident move that came through a signed link, a voice call's keypad or a chat button, in one transaction
 * with its audit entry (the incident as target, its status after, the request's address): both or neither. Resolves
 * the incident, or undefined when the project has no such incident (nothing recorded).
 */
export async function auditedMove(
  deps: { db: Kysely<Database>; clock: Clock },
  c: Context,
  move: KeylessMove,
  change: () => Promise<IncidentView | undefined>,
): Promise<IncidentView | undefined> {
  let incident: IncidentView | undefined;
  await inOneTransaction(async () => {
    incident = await change();
    const project = incident && (await findProject(deps.db, move.projectId));
    if (!incident || !project) return false;
    await recordAudit(deps.db, deps.clock, {
      tenantId: project.tenantId,
      projectId: move.projectId,
      actor: move.actor,
      operation: move.operation,
      target: { type: 'incident', id: move.incidentId },
      changes: { after: { status: incident.status } },
      address: clientAddress(c),
      status: 200,
    });
    return true;
  });
  return incident;
}
