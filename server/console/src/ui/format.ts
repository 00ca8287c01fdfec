/** Formatting shared by every page: one way to show a time, a duration, a size. */

/**
 * Every time carries its zone ("14:05:09 GMT+2", "Jan 5, 2027, 9:00:00 AM UTC"): the console shows the browser's own
 * zone, which the person reading a time cannot otherwise tell from the server's or a colleague's.
 */
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});
const shortTime = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});
const dayHour = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** The browser's time zone, as the header states it: its IANA name and short name (`Europe/Paris (GMT+1)`). */
export function timeZoneLabel(at = new Date()): string {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const short = shortTime.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  return short && short !== name ? `${name} (${short})` : name;
}

export function formatTime(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : dateTime.format(d);
}

export function formatClock(iso: string | number): string {
  return shortTime.format(new Date(iso));
}

/** The start of a chart's bucket: "Jan 5, 9:00 AM GMT+1" (minutes too: some zones are half an hour off UTC's hours). */
export function formatHour(iso: string | number): string {
  return dayHour.format(new Date(iso));
}

/** 850 ms, 4.2 s, 3 min 20 s, 2 h 5 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 59.5) return `${s.toFixed(s < 9.95 ? 1 : 0)} s`;
  // Whole seconds first, so 119.99 s reads "2 min 0 s", never "1 min 60 s".
  const total = Math.round(s);
  const min = Math.floor(total / 60);
  if (min < 60) return `${min} min ${total % 60} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

const money = new Map<string, Intl.NumberFormat>();
export function formatMoney(amount: number | null | undefined, currency = 'USD'): string {
  if (amount === null || amount === undefined) return '—';
  let f = money.get(currency);
  if (!f) money.set(currency, (f = new Intl.NumberFormat(undefined, { style: 'currency', currency })));
  return f.format(amount);
}

/** "3 min ago", for freshness. */
export function formatAgo(iso: string | number | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined) return 'never';
  const ms = now - new Date(iso).getTime();
  if (ms < 60_000) return 'just now';
  return `${formatDuration(ms).replace(/ \d+ s$/, '')} ago`;
}
