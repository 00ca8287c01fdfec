import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatHour, timeZoneLabel } from './format';

export interface ChartSeries {
  label: string;
  values: ReadonlyArray<number | null>;
  /** CSS colour; the palette in styles.css has names for the usual ones. */
  color: string;
  /** Bars instead of a line. */
  bars?: boolean;
  dash?: number[];
}

export interface ChartProps {
  /** What the chart shows, read to screen readers (the data is also in a table next to each chart). */
  title: string;
  /** X values: epoch seconds. */
  x: readonly number[];
  series: readonly ChartSeries[];
  height?: number;
  /** Horizontal guide lines (thresholds), drawn dashed. */
  guides?: ReadonlyArray<{ value: number; color: string; label: string }>;
  /** X positions to mark (anomalies), drawn as dots on the first series. */
  marks?: readonly number[];
  /** X ranges to shade (where an alert rule fired), epoch seconds; `to` null runs to the chart's end. */
  bands?: ReadonlyArray<{ from: number; to: number | null; color: string }>;
  yLabel?: string;
}

/**
 * A time chart through uPlot (about 20 KB min+gzip, canvas, fast on thousands of points; chosen over Chart.js and
 * Recharts for size, see docs/console.md). Resizes with its container.
 */
export function Chart({ title, x, series, height = 220, guides = [], marks = [], bands = [], yLabel }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const markSet = new Set(marks);
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height,
      // One series needs no legend (the title names it); several do.
      legend: { show: series.length > 1 },
      // From zero, and high enough that every threshold guide is drawn even when the values stay below it.
      scales: { y: { range: (_u, _min, max) => [0, Math.max(max, ...guides.map((g) => g.value)) * 1.1 || 1] } },
      cursor: { drag: { x: false, y: false } },
      // uPlot draws the browser's local time: the axis and the legend's time name the zone, as every time does.
      axes: [{ label: `Time, ${timeZoneLabel()}`, labelSize: 20 }, { label: yLabel }],
      series: [
        { value: (_u: uPlot, seconds: number | null) => (seconds === null ? '—' : formatHour(seconds * 1000)) },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          fill: s.bars ? s.color : undefined,
          dash: s.dash,
          paths: s.bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined,
          points:
            i === 0 && markSet.size > 0
              ? {
                  show: true,
                  size: 8,
                  filter: (_u: uPlot, seriesIdx: number) =>
                    seriesIdx === 1 ? x.flatMap((t, j) => (markSet.has(t) ? [j] : [])) : null,
                }
              : undefined,
        })),
      ],
      hooks: {
        // Bands under the series, guides over them.
        drawClear: [
          (u) => {
            for (const b of bands) {
              const left = Math.max(u.valToPos(b.from, 'x', true), u.bbox.left);
              const right = b.to === null ? u.bbox.left + u.bbox.width : u.valToPos(b.to, 'x', true);
              u.ctx.save();
              u.ctx.fillStyle = b.color;
              u.ctx.fillRect(left, u.bbox.top, Math.max(right - left, 2), u.bbox.height);
              u.ctx.restore();
            }
          },
        ],
        draw: [
          (u) => {
            for (const g of guides) {
              const y = u.valToPos(g.value, 'y', true);
              u.ctx.save();
              u.ctx.strokeStyle = g.color;
              u.ctx.setLineDash([6, 4]);
              u.ctx.beginPath();
              u.ctx.moveTo(u.bbox.left, y);
              u.ctx.lineTo(u.bbox.left + u.bbox.width, y);
              u.ctx.stroke();
              u.ctx.restore();
            }
          },
        ],
      },
    };
    const plot = new uPlot(opts, [x as number[], ...series.map((s) => s.values as (number | null)[])], el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [x, series, height, guides, marks, bands, yLabel]);
  return (
    <div ref={box} className="chart" role="img" aria-label={title} aria-description={`Times in ${timeZoneLabel()}`} />
  );
}
