import { formatVital, rate, RatingBadge, VITAL_METRICS } from '../../ui/web-vitals';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import type { MetricRow } from './types';

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
        const v = VITAL_METRICS[m.name];
        const page = m.attributes['url.path'];
        return (
          <>
            <span className="vital-name">{v?.vital ?? m.name}</span>
            <span className="numeric">{formatVital(v?.unit ?? '', m.value)}</span>
            {v && m.value !== null && <RatingBadge rating={rate(v, m.value)} />}
            <span className="row-text mono">{typeof page === 'string' ? page : 'page not recorded'}</span>
          </>
        );
      }}
    />
  );
}
