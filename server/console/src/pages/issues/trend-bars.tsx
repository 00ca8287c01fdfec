import { useId } from 'react';
import { formatHour } from '../../ui/format';
import { useUrlState } from '../../ui/url-state';
import type { IssueTrend } from './types';

const PERIOD_WORDS: Record<IssueTrend['period'], { span: string; bucket: string }> = {
  '24h': { span: 'the last 24 hours', bucket: 'an hour' },
  '14d': { span: 'the last 14 days', bucket: 'a day' },
};

/** What a trend says, in words: the chart's accessible name and tooltip. */
export function trendSummary(trend: IssueTrend): string {
  const total = trend.counts.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...trend.counts);
  const words = PERIOD_WORDS[trend.period];
  const errors = total === 1 ? '1 error' : `${total.toLocaleString()} errors`;
  return total === 0
    ? `No errors in ${words.span}`
    : `${errors} in ${words.span}, at most ${peak.toLocaleString()} in ${words.bucket}`;
}

/**
 * Errors per bucket as bars (SVG, no chart library: a list draws one per row), scaled to the trend's own peak. The
 * summary is its accessible name; each bar's time and count show on hover.
 */
export function TrendBars({
  trend,
  width = 112,
  height = 26,
  axis = false,
}: {
  trend: IssueTrend;
  width?: number;
  height?: number;
  axis?: boolean;
}) {
  const peak = Math.max(1, ...trend.counts);
  const slot = width / trend.counts.length;
  const start = Date.parse(trend.start);
  const summary = trendSummary(trend);
  return (
    <figure className={`trend${axis ? ' trend-axis' : ''}`}>
      <svg
        role="img"
        aria-label={summary}
        width={axis ? '100%' : width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
      >
        <title>{summary}</title>
        {trend.counts.map((count, i) => {
          const h = count === 0 ? 1 : Math.max(2, (count / peak) * height);
          return (
            <rect
              key={i}
              className={count === 0 ? 'trend-empty' : 'trend-bar'}
              x={i * slot + slot * 0.1}
              y={height - h}
              width={slot * 0.8}
              height={h}
            >
              <title>{`${formatHour(start + i * trend.bucket_ms)}: ${count.toLocaleString()}`}</title>
            </rect>
          );
        })}
      </svg>
      {axis && (
        <figcaption className="trend-ends hint" aria-hidden="true">
          <span>{formatHour(start)}</span>
          <span>now</span>
        </figcaption>
      )}
    </figure>
  );
}

export const TREND_PERIODS = ['24h', '14d'] as const satisfies ReadonlyArray<IssueTrend['period']>;

/** The list's trend period (`?trend=`), 24 hours unless the address says 14 days. */
export function useTrendPeriod(): IssueTrend['period'] {
  const [params] = useUrlState();
  return params.get('trend') === '14d' ? '14d' : '24h';
}

/** Two buttons choosing the list's trend period, kept in the address. */
export function TrendPeriodToggle() {
  const [, update] = useUrlState();
  const period = useTrendPeriod();
  const id = useId();
  return (
    <div className="field">
      <span className="field-label" id={id}>
        Trend
      </span>
      <div role="group" aria-labelledby={id} className="segmented">
        {TREND_PERIODS.map((p) => (
          <button
            key={p}
            type="button"
            aria-pressed={period === p}
            onClick={() => update({ trend: p === '24h' ? null : p })}
          >
            {p === '24h' ? '24 hours' : '14 days'}
          </button>
        ))}
      </div>
    </div>
  );
}
