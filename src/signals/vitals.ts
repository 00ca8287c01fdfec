import { onCLS, onFCP, onINP, onLCP, onTTFB, type MetricType, type ReportOpts } from 'web-vitals';
import type { IntegrationCore, RouteHistory } from '../core/integration';
import type { Attributes } from '../core/types';
import { describeNode, isDomNode } from './element';
import { runGuarded } from './internal';

type Subscribe = (report: (metric: MetricType) => void, options: ReportOpts) => void;

/** Each vital with its metric name and unit, exactly as SPEC 2.9 lists them. */
const WEB_VITALS: ReadonlyArray<{ readonly subscribe: Subscribe; readonly name: string; readonly unit: string }> = [
  { subscribe: onFCP, name: 'web_vital_fcp_ms', unit: 'ms' },
  { subscribe: onLCP, name: 'web_vital_lcp_ms', unit: 'ms' },
  { subscribe: onCLS, name: 'web_vital_cls', unit: '1' },
  { subscribe: onINP, name: 'web_vital_inp_ms', unit: 'ms' },
  { subscribe: onTTFB, name: 'web_vital_ttfb_ms', unit: 'ms' },
];

const describe = (node: unknown): string | undefined => (isDomNode(node) ? describeNode(node) : undefined);

const largestShift = (entries: readonly LayoutShift[]): LayoutShift | undefined => {
  let largest: LayoutShift | undefined;
  for (const entry of entries) if (largest === undefined || entry.value > largest.value) largest = entry;
  return largest;
};

/**
 * The element a vital is about, read from the metric's own entries rather than web-vitals' attribution build
 * (which costs 2.5 KB min+gzip more): the LCP element, the first element moved by the largest layout shift, and the
 * target of the slowest interaction. Undefined when the element is gone or there is none (CLS of 0).
 */
function targetOf(metric: MetricType): string | undefined {
  switch (metric.name) {
    case 'LCP': {
      const last = metric.entries[metric.entries.length - 1];
      return describe(last?.element);
    }
    case 'CLS': {
      const shift = largestShift(metric.entries);
      const moved = shift?.sources.find((source) => source.node !== null);
      return describe(moved?.node);
    }
    case 'INP': {
      const entry = metric.entries[0];
      if (entry === undefined) return undefined;
      const target = describe(entry.target);
      return target ?? (entry.targetSelector || undefined);
    }
    default:
      return undefined;
  }
}

/**
 * The path of the page a vital was measured on: FCP, LCP and TTFB belong to the page load, INP to the route the
 * slowest interaction happened on, CLS to the route of its largest shift (the page load's when there was none). The
 * path is read from when the entry happened, not from when web-vitals reported it: LCP is reported at the first
 * input, whose handler may already have routed elsewhere.
 */
function pathOf(metric: MetricType, routes: RouteHistory): string {
  const entry =
    metric.name === 'INP' ? metric.entries[0] : metric.name === 'CLS' ? largestShift(metric.entries) : undefined;
  return entry === undefined ? routes.loadPath : routes.at(entry.startTime);
}

function vitalAttributes(metric: MetricType, routes: RouteHistory): Attributes {
  const attributes: Attributes = {
    'web_vital.rating': metric.rating,
    'web_vital.navigation_type': metric.navigationType,
    'web_vital.id': metric.id,
    'web_vital.delta': metric.delta,
    // For per-route figures: the path only, as query strings and fragments can carry personal data.
    'url.path': pathOf(metric, routes),
  };
  const target = targetOf(metric);
  if (target !== undefined) attributes['web_vital.target'] = target;
  return attributes;
}

/**
 * Records FCP, LCP, CLS, INP and TTFB through web-vitals when `vitals.enabled`, each as a metric point with the
 * name and unit of {@link WEB_VITALS}, once per final value (or on every change with `vitals.reportAllChanges`), each
 * with the path of the page it was measured on (`url.path`, {@link pathOf}).
 *
 * web-vitals offers no way to unsubscribe, so at shutdown its callbacks are turned into no-ops. CLS and INP are
 * finalised by web-vitals in a capture-phase `visibilitychange` listener on `window`, which runs before the SDK's
 * page-hidden flush as long as that flush listens on `document` or in the bubbling phase.
 */
export function startVitals(core: IntegrationCore): void {
  const { metric: record, routes } = core;
  if (!core.config.vitals.enabled || typeof window === 'undefined') return;
  let running = true;
  core.teardown.add(() => {
    running = false;
  });
  const options: ReportOpts = { reportAllChanges: core.config.vitals.reportAllChanges };
  for (const { subscribe, name, unit } of WEB_VITALS) {
    runGuarded(core, `Web Vitals (${name})`, () =>
      subscribe((metric) => {
        if (!running) return;
        runGuarded(core, `Web Vitals (${name})`, () =>
          record(name, metric.value, unit, undefined, vitalAttributes(metric, routes)),
        );
      }, options),
    );
  }
}
