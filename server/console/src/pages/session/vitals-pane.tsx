import { formatDuration } from '../../ui/format';
import { Badge } from '../../ui/status';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import type { MetricRow } from './types';

/** web.dev's thresholds: at or below `good` is good, above `poor` is poor, in between needs improvement. */
const VITALS: Record<string, { label: string; good: number; poor: number; ms: boolean }> = {
  web_vital_lcp_ms: { label: 'LCP', good: 2500, poor: 4000, ms: true },
  web_vital_fcp_ms: { label: 'FCP', good: 1800, poor: 3000, ms: true },
  web_vital_inp_ms: { label: 'INP', good: 200, poor: 500, ms: true },
  web_vital_ttfb_ms: { label: 'TTFB', good: 800, poor: 1800, ms: true },
  web_vital_cls: { label: 'CLS', good: 0.1, poor: 0.25, ms: false },
};

type Rating = { text: string; tone: 'good' | 'warn' | 'bad' };

export function rate(name: string, value: number): Rating | undefined {
  const v = VITALS[name];
  if (!v) return undefined;
  if (value <= v.good) return { text: 'good', tone: 'good' };
  if (value <= v.poor) return { text: 'needs improvement', tone: 'warn' };
  return { text: 'poor', tone: 'bad' };
}

/** The session's Web Vitals points: each value, its rating and the page it was measured on. */
export function VitalsPane({ vitals, ...timing }: PaneProps & { vitals: readonly MetricRow[] }) {
  const items = vitals.map((m) => ({ key: String(m.id), at: Date.parse(m.time), m }));
  return (
    <SeekList
      label="Web Vitals"
      items={items}
      {...timing}
      empty="No Web Vitals were measured in this session."
      row={({ m }) => {
        const v = VITALS[m.name];
        const rating = m.value === null ? undefined : rate(m.name, m.value);
        const page = m.attributes['url.path'];
        return (
          <>
            <span className="vital-name">{v?.label ?? m.name}</span>
            <span className="numeric">{m.value === null ? '—' : v?.ms ? formatDuration(m.value) : m.value.toFixed(3)}</span>
            {rating && <Badge tone={rating.tone}>{rating.text}</Badge>}
            <span className="row-text mono">{typeof page === 'string' ? page : 'page not recorded'}</span>
          </>
        );
      }}
    />
  );
}
