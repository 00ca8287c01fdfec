import type { DetectionTrx, GroupRow } from '../../incidents/detect/groups';

interface IncidentMerge {
  from: GroupRow;
  target: GroupRow | undefined;
  into: string;
  /** The merged issue's incident title: its frame now names the original file. */
  title: string;
}

/**
 * The merged issue's incident: the open one of either moves with it (re-keyed to the new id, titled anew); when both
 * have one, the target's stays and the old issue's is resolved, `by` naming the merge (without notification: the
 * bug's incident is still open). The errors of the issue without the incident count as before it.
 */
export async function mergeIncidents(trx: DetectionTrx, { from, target, into, title }: IncidentMerge, now: number) {
  const cols = (g: GroupRow) => ({
    incident_id: g.incident_id,
    incident_base_total: g.incident_base_total,
    incident_open_count: g.incident_open_count,
    reset_total: g.reset_total,
  });
  if (!target) {
    if (from.incident_id !== null) await rekeyIncident(trx, from, into, title);
    return cols(from);
  }
  const kept = target.incident_id === null && from.incident_id !== null ? from : target;
  const other = kept === from ? target : from;
  if (kept === from) await rekeyIncident(trx, from, into, title);
  else if (from.incident_id !== null) {
    await trx
      .updateTable('incidents')
      .set({
        status: 'resolved',
        resolved_ms: now,
        resolved_by: `merged into issue ${into}`,
        open_key: null,
        updated_ms: now,
      })
      .where('project_id', '=', from.project_id)
      .where('id', '=', from.incident_id)
      .where('status', '!=', 'resolved')
      .execute();
  }
  const before = Number(other.total_count);
  return {
    ...cols(kept),
    incident_base_total: Number(kept.incident_base_total) + before,
    reset_total: Number(kept.reset_total) + before,
  };
}

/** Re-keys the old issue's incident to the merged issue's id, keeping it the one open incident of that key. */
async function rekeyIncident(trx: DetectionTrx, from: GroupRow, into: string, title: string): Promise<void> {
  await trx
    .updateTable('incidents')
    .set((eb) => ({
      fingerprint: into,
      title,
      open_key: eb.case().when('open_key', 'is', null).then(null).else(`${from.project_id}:${into}`).end(),
    }))
    .where('project_id', '=', from.project_id)
    .where('id', '=', from.incident_id!)
    .execute();
}
