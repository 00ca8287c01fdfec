/** SPEC 2.5 `conditions`: each list given narrows the rule; an absent or empty list matches everything. */
export interface RuleConditions {
  severity?: string[];
  env?: string[];
  services?: string[];
}

/** What rules look at in an event: an incident's, or an issue event's (severity `warning`). */
export interface RuleSubject {
  severity: string;
  env: string;
  services: string[];
}

/** A rule matches when the event's severity and env are listed and one of its services is (where lists are given). */
export function ruleMatches(conditions: RuleConditions, subject: RuleSubject): boolean {
  const allows = (list: string[] | undefined, value: string) =>
    list === undefined || list.length === 0 || list.includes(value);
  return (
    allows(conditions.severity, subject.severity) &&
    allows(conditions.env, subject.env) &&
    (conditions.services === undefined ||
      conditions.services.length === 0 ||
      subject.services.some((s) => conditions.services!.includes(s)))
  );
}
