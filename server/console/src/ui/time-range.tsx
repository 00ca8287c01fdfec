import { useId } from 'react';
import { useUrlState } from './url-state';

const PRESETS = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

/**
 * The time window of a view, in the URL as `range` (a preset such as `24h`; none means all time). The API gets
 * `from`/`to` in epoch milliseconds computed when the view loads, so a shared link shows the same relative window;
 * as text, the way a query carries them.
 */
export function useTimeRange(fallback: string | null = null): { range: string | null; from?: string; to?: string } {
  const [params] = useUrlState();
  const range = params.get('range') ?? fallback;
  const preset = PRESETS.find((p) => p.value === range);
  if (!preset) return { range: null };
  // Rounded to the minute so re-renders within a minute ask the same question (and the request is not repeated).
  const to = Math.ceil(Date.now() / 60_000) * 60_000;
  return { range, from: String(to - preset.ms), to: String(to) };
}

export function TimeRangePicker({ fallback = null }: { fallback?: string | null }) {
  const [params, update] = useUrlState();
  const id = useId();
  return (
    <div className="field time-range">
      <label htmlFor={id}>Time range</label>
      <select
        id={id}
        value={params.get('range') ?? fallback ?? ''}
        onChange={(e) => update({ range: e.target.value || null })}
      >
        {fallback === null && <option value="">All time</option>}
        {PRESETS.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </select>
    </div>
  );
}
