import type { AlertRule } from '../rule';

/** A console page showing the telemetry a rule measures. */
export interface ConsoleLink {
  label: string;
  url: string;
}

/** The console's time-range presets (console/src/ui/time-range.tsx), shortest first. */
const RANGES: ReadonlyArray<readonly [string, number]> = [
  ['15m', 900],
  ['1h', 3600],
  ['24h', 86_400],
  ['7d', 604_800],
];

/** The shortest console range holding the rule's window. */
const rangeOf = (windowSeconds: number) => RANGES.find(([, seconds]) => seconds >= windowSeconds)?.[0] ?? '30d';

/** A route pattern as the console's "contains" filters take it: the text before its first `*`. */
const routeText = (route: string | undefined) => route?.split('*')[0] || undefined;

function pageUrl(base: string, path: string, params: Record<string, string | undefined>): string {
  const url = new URL(path, base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * Console pages with what the rule counts, filtered as far as their filters go (one app, environment and release, the
 * route), over the shortest range that holds the window: where to look first when the incident arrives.
 */
export function consoleLinks(
  rule: Pick<AlertRule, 'signal' | 'query' | 'windowSeconds'>,
  publicUrl: string,
): ConsoleLink[] {
  const f = rule.query.filter ?? {};
  const { aggregate } = rule.query;
  const range = rangeOf(rule.windowSeconds);
  const common = { app: f.app?.[0], env: f.env?.[0], release: f.release?.[0], range };
  const sessions = (label: string, hasErrors?: boolean) => ({
    label,
    url: pageUrl(publicUrl, '/sessions', {
      ...common,
      url: routeText(f.route),
      has_errors: hasErrors ? 'true' : undefined,
    }),
  });
  switch (rule.signal) {
    case 'vitals':
      return [
        { label: 'Web Vitals', url: pageUrl(publicUrl, '/vitals', { app: common.app, route: f.route, range }) },
        sessions('Sessions'),
      ];
    case 'spans':
      return [
        {
          label: aggregate === 'error_rate' ? 'Failing traces' : 'Traces',
          url: pageUrl(publicUrl, '/traces', {
            service: f.service ?? common.app,
            name: f.name ?? routeText(f.route),
            status: aggregate === 'error_rate' ? 'error' : undefined,
            range,
          }),
        },
      ];
    case 'issues':
      return [
        f.issue_id
          ? { label: 'Issue', url: pageUrl(publicUrl, `/issue/${encodeURIComponent(f.issue_id)}`, {}) }
          : { label: 'Issues', url: pageUrl(publicUrl, '/issues', common) },
      ];
    case 'sessions':
      return [
        sessions(
          aggregate === 'error_free_share' ? 'Sessions with errors' : 'Sessions',
          aggregate === 'error_free_share',
        ),
      ];
    case 'logs':
    case 'metrics':
      return [sessions('Sessions')];
  }
}
