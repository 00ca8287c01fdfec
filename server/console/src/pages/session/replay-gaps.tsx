import type { ReplayGap } from './types';

/** Missing chunk numbers named per replay; the rest are counted. */
const LISTED = 10;

/** Warns when part of the replay never reached the server: playback jumps over those moments. */
export function ReplayGaps({ gaps }: { gaps: readonly ReplayGap[] }) {
  const missing = gaps.filter((g) => g.missing_seq.length > 0);
  if (missing.length === 0) return null;
  const describe = (g: ReplayGap) => {
    const listed = g.missing_seq.slice(0, LISTED).join(', ');
    const more = g.missing_count > LISTED ? ` and ${g.missing_count - LISTED} more` : '';
    return `replay ${g.replay_id}: chunk${g.missing_count === 1 ? '' : 's'} ${listed}${more}`;
  };
  return (
    <p className="state state-warn replay-gaps" role="note">
      Part of this replay never reached the server ({missing.map(describe).join('; ')}). Playback jumps over the missing
      moments.
    </p>
  );
}
