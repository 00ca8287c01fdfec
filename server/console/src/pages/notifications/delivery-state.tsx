import { Badge } from '../../ui/status';

const TONES: Record<string, 'good' | 'warn' | 'bad' | 'neutral' | 'info'> = {
  delivered: 'good',
  sent: 'info',
  scheduled: 'neutral',
  retrying: 'warn',
  failed: 'bad',
  cancelled: 'neutral',
};

/** A delivery's state as a badge whose text is the state (the colour only repeats it). */
export function DeliveryState({ state }: { state: string }) {
  return <Badge tone={TONES[state] ?? 'neutral'}>{state}</Badge>;
}
