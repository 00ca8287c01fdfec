/** SPEC 2.5 `conditions`: each list given narrows the rule; an absent or empty list matches everything. */
export interface RuleConditions {
  severity?: string[];
  env?: string[];
  services?: string[];
  /** User ids, or {@link UNASSIGNED} for what is assigned to no one (docs/teams.md, "Ownership"). */
  assignees?: string[];
}

/** The `assignees` entry that matches an unassigned incident or issue. */
export const UNASSIGNED = 'unassigned';

/** What rules look at in an event: an incident's, or an issue event's (severity `warning`). */
export interface RuleSubject {
  severity: string;
  env: string;
  services: string[];
  /** The incident's or issue's assignee (user id); null when unassigned. */
  assigneeId: string | null;
}

/**
 * A rule matches when the event's severity, env and assignee are listed and one of its services is (where lists are
 * given).
 */
export function ruleMatches(conditions: RuleConditions, subject: RuleSubject): boolean {
  const allows = (list: string[] | undefined, value: string) =>
    list === undefined || list.length === 0 || list.includes(value);
  return (
    allows(conditions.severity, subject.severity) &&
    allows(conditions.env, subject.env) &&
    allows(conditions.assignees, subject.assigneeId ?? UNASSIGNED) &&
    (conditions.services === undefined ||
      conditions.services.length === 0 ||
      subject.services.some((s) => conditions.services!.includes(s)))
  );
}
