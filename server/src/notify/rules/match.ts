import type { IncidentEvent } from '../../incidents/store';

/** SPEC 2.5 `conditions`: each list given narrows the rule; an absent or empty list matches everything. */
export interface RuleConditions {
  severity?: string[];
  env?: string[];
  services?: string[];
}

/** A rule matches when the incident's severity and env are listed and one of its services is (where lists are given). */
export function ruleMatches(conditions: RuleConditions, incident: Pick<IncidentEvent, 'severity' | 'env' | 'services'>): boolean {
  const allows = (list: string[] | undefined, value: string) => list === undefined || list.length === 0 || list.includes(value);
  return (
    allows(conditions.severity, incident.severity) &&
    allows(conditions.env, incident.env) &&
    (conditions.services === undefined || conditions.services.length === 0 || incident.services.some((s) => conditions.services!.includes(s)))
  );
}
