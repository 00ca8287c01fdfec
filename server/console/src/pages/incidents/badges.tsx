import { Badge } from '../../ui/status';
import type { IncidentStatus, Severity } from './types';

const SEVERITY_TONE: Record<Severity, 'bad' | 'warn' | 'info' | 'neutral'> = {
  critical: 'bad',
  high: 'bad',
  medium: 'warn',
  low: 'info',
  warning: 'warn',
  info: 'neutral',
};
const STATUS_TONE = { detected: 'warn', escalated: 'bad', acknowledged: 'info', resolved: 'good' } as const;

/** Severity and status as labelled badges: the word carries the meaning. */
export const SeverityBadge = ({ severity }: { severity: Severity }) => (
  <Badge tone={SEVERITY_TONE[severity] ?? 'neutral'}>{severity}</Badge>
);
export const IncidentStatusBadge = ({ status }: { status: IncidentStatus }) => (
  <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status}</Badge>
);
