// The incident moves an evaluation decided (decide.ts), made through the incident commands, so notifications, routing
// rules, signed pages and chat actions treat a rule's incident as any other (docs/alerts.md, "Evaluation").
import { DEFAULT_ENV } from '../../otlp/environment';
import type { IncidentCommands, IncidentView, RuleEvidence } from '../../incidents/types';
import type { AlertRule } from '../rule';
import { crosses } from '../rule';
import type { Decision, IncidentCause, OpenIncident, Reading } from './decide';
import { ruleEvidence, ruleFingerprint, ruleSummary, ruleTitle } from './evidence';
import type { EvaluationOptions } from './options';

export interface LifecycleDeps {
  commands: IncidentCommands;
  /** Base URL of the server, for the console links of the evidence. */
  publicUrl: string;
  options: EvaluationOptions;
}

/** Incident ids per move of one evaluation. */
export interface MovesMade {
  opened: string[];
  escalated: string[];
  resolved: string[];
  updated: string[];
}

/** Who the incident history names when a rule resolves its incident. */
const RESOLVER = 'alert rule';

/** The rule's open incident, if any (one per rule: the incidents' open key). */
export const findRuleIncident = (commands: IncidentCommands, rule: Pick<AlertRule, 'id' | 'projectId'>) =>
  commands.findOpen(rule.projectId, ruleFingerprint(rule.id));

const ruleEvidenceOf = (incident: IncidentView): RuleEvidence | undefined =>
  incident.evidence !== null && 'kind' in incident.evidence ? incident.evidence : undefined;

/** The open incident as decide.ts sees it: its id and why it opened. */
export const openIncidentOf = (incident: IncidentView): OpenIncident => ({
  id: incident.id,
  cause: ruleEvidenceOf(incident)?.cause ?? 'condition',
});

/**
 * Where the incident happens, for routing rules: the rule's one environment (else production, as an unlabelled app is
 * taken to be: docs/incidents.md) and its apps, else the service its query names.
 */
function placeOf(rule: AlertRule): { env: string; services: string[] } {
  const f = rule.query.filter ?? {};
  return {
    env: f.env?.length === 1 ? f.env[0]! : DEFAULT_ENV,
    services: f.app ?? (f.service ? [f.service] : []),
  };
}

async function open(deps: LifecycleDeps, rule: AlertRule, reading: Reading, cause: IncidentCause, nowMs: number) {
  const evidence = ruleEvidence(rule, reading, { cause, detected: reading, atMs: nowMs, publicUrl: deps.publicUrl });
  return deps.commands.open({
    projectId: rule.projectId,
    title: ruleTitle(rule, reading, cause),
    severity: rule.severity,
    ...placeOf(rule),
    rootCauseSummary: ruleSummary(rule, reading, cause),
    fingerprint: ruleFingerprint(rule.id),
    evidence,
  });
}

/**
 * Why a rule's incident that is still only `detected` should escalate, if it should: as the error detector does
 * (incidents/detect/decisions.ts), once it has grown — the value {@link EvaluationOptions.growthFactor} times as far
 * past the bound as at detection — or once it has lasted {@link EvaluationOptions.persistMs}.
 */
export function escalationReason(
  incident: IncidentView,
  reading: Reading,
  options: EvaluationOptions,
  rule: Pick<AlertRule, 'condition'>,
  nowMs: number,
): string | undefined {
  if (incident.status !== 'detected') return undefined;
  const detected = ruleEvidenceOf(incident);
  const { value, bound } = reading;
  const atOpen = detected?.value_at_detection ?? null;
  const boundAtOpen = detected?.threshold_at_detection ?? null;
  if (
    value !== null &&
    bound !== null &&
    atOpen !== null &&
    boundAtOpen !== null &&
    crosses(rule.condition.op, value, bound)
  ) {
    const before = Math.abs(atOpen - boundAtOpen);
    const now = Math.abs(value - bound);
    if (before > 0 && now >= options.growthFactor * before)
      return `still growing: ${detected!.measure} is ${options.growthFactor}× as far past its threshold as at detection`;
  }
  const lastedMs = nowMs - Date.parse(incident.detected_at);
  if (lastedMs >= options.persistMs)
    return `alert rule still firing ${Math.round(lastedMs / 60_000)} minutes after detection`;
  return undefined;
}

/** Escalates the open incident when it should, and refreshes its evidence when the value moved (no notification). */
async function follow(
  deps: LifecycleDeps,
  rule: AlertRule,
  reading: Reading,
  incident: IncidentView,
  nowMs: number,
  made: MovesMade,
) {
  const reason = escalationReason(incident, reading, deps.options, rule, nowMs);
  if (reason !== undefined) {
    const moved = await deps.commands.escalate(rule.projectId, incident.id, reason);
    if (moved?.status === 'escalated') made.escalated.push(incident.id);
  }
  const before = ruleEvidenceOf(incident);
  if (before?.value === reading.value && before.threshold === reading.bound) return;
  const cause = openIncidentOf(incident).cause;
  const detected = { value: before?.value_at_detection ?? null, bound: before?.threshold_at_detection ?? null };
  const evidence = ruleEvidence(rule, reading, { cause, detected, atMs: nowMs, publicUrl: deps.publicUrl });
  await deps.commands.update(rule.projectId, incident.id, evidence, ruleSummary(rule, reading, cause));
  made.updated.push(incident.id);
}

/**
 * Makes the decision's moves on the rule's incident (`incident`: the one open before them) and answers the incident
 * of the rule's episode afterwards: the one opened or still open, the one a person resolved meanwhile (so that it is
 * not opened again), or null once the rule is back to `ok` or `pending`.
 */
export async function makeMoves(
  deps: LifecycleDeps,
  rule: AlertRule,
  reading: Reading,
  decision: Decision,
  incident: IncidentView | undefined,
  nowMs: number,
  made: MovesMade,
): Promise<string | null> {
  let current = incident?.id ?? rule.incidentId;
  for (const move of decision.moves) {
    if (move.kind === 'open') {
      const { id, created } = await open(deps, rule, reading, move.cause, nowMs);
      if (created) made.opened.push(id);
      current = id;
    } else if (move.kind === 'resolve') {
      const resolved = await deps.commands.resolve(rule.projectId, current!, `${RESOLVER}: ${move.why}`);
      if (resolved?.status === 'resolved') made.resolved.push(current!);
      current = null;
    } else await follow(deps, rule, reading, incident!, nowMs, made);
  }
  return decision.state === 'ok' || decision.state === 'pending' ? null : current;
}

/**
 * A rule deleted while its incident is open resolves it, as Grafana resolves the alerts of a deleted rule: nothing
 * would ever resolve it otherwise. The API's delete calls this after removing the row.
 */
export async function ruleDeleted(
  commands: IncidentCommands,
  rule: Pick<AlertRule, 'id' | 'projectId'>,
): Promise<void> {
  const incident = await findRuleIncident(commands, rule);
  if (incident) await commands.resolve(rule.projectId, incident.id, `${RESOLVER}: rule deleted`);
}
