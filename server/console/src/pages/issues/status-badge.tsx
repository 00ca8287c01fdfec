import { Badge } from '../../ui/status';
import type { IssueStatus } from './types';

const TONE = { unresolved: 'warn', regressed: 'bad', resolved: 'good', ignored: 'neutral' } as const;

/** An issue's status as a labelled badge (the word carries the meaning, the colour only repeats it). */
export function IssueStatusBadge({ status }: { status: IssueStatus }) {
  return <Badge tone={TONE[status] ?? 'neutral'}>{status}</Badge>;
}
