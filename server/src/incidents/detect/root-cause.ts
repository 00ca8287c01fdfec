import type { IncidentEvidence } from '../types';
import type { FrameSource } from './tables';

/** Longest incident title; chat cards and SMS cut long ones anyway. */
const MAX_TITLE_LENGTH = 200;

/** What the title and summary say about the error besides the evidence: its message as people read it. */
export interface ErrorHeadline {
  errorType: string;
  /** One occurrence's message with personal and secret data masked. */
  sampleMessage: string;
  /** File of the top in-app frame. */
  topFile: string | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `TypeError: Cannot read properties of undefined (reading 'id')`. */
export function headline({ errorType, sampleMessage }: Pick<ErrorHeadline, 'errorType' | 'sampleMessage'>): string {
  return sampleMessage === '' ? errorType : `${errorType}: ${sampleMessage}`;
}

/** `TypeError: Cannot read properties of undefined (reading 'id') in checkout.js`. */
export function incidentTitle(error: ErrorHeadline): string {
  const title = error.topFile ? `${headline(error)} in ${error.topFile}` : headline(error);
  return title.length <= MAX_TITLE_LENGTH ? title : `${title.slice(0, MAX_TITLE_LENGTH - 1)}…`;
}

/** `5 minutes`, `90 seconds`, `3 hours`. */
export function describeDuration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 120) return plural(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return plural(minutes, 'minute');
  return plural(Math.round(minutes / 60), 'hour');
}

/** The method in a request span's name: `HTTP POST`, `POST`, the SDK's `browser.fetch POST`. */
const METHOD = /(?:^|\s)(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/i;

/** `POST /api/cart` from a span named `HTTP POST`, `POST` or `browser.fetch POST` and its URL; the span name when it has no URL. */
export function requestLabel(request: { name: string; url: string | null }): string {
  let path: string | null = null;
  if (request.url !== null) {
    try {
      path = new URL(request.url).pathname;
    } catch {
      path = request.url;
    }
  }
  const method = METHOD.exec(request.name)?.[1]?.toUpperCase();
  if (method && path) return `${method} ${path}`;
  return path ?? request.name;
}

/** Longest source line quoted; minified-looking or generated lines can be very long. */
const MAX_QUOTE_LENGTH = 160;

/** `` The line: `const total = cart.items.reduce(…)`. `` from the top frame's source line, when a map had it. */
export function quoteSourceLine(source: FrameSource | undefined): string | undefined {
  const code = source?.code?.trim();
  if (!code) return undefined;
  return `The line: \`${code.length <= MAX_QUOTE_LENGTH ? code : `${code.slice(0, MAX_QUOTE_LENGTH - 1)}…`}\`.`;
}

/** Evidence the detector gathered now: it knows when the burst began. */
export type BurstEvidence = IncidentEvidence & { burst_started_at: string };

/** How long the counted errors took, from the reporter's times of the burst's first and last errors: `in 37 seconds`, `within a second`. */
function burstDuration(evidence: BurstEvidence): string {
  const ms = Date.parse(evidence.last_seen_at) - Date.parse(evidence.burst_started_at);
  return ms < 1000 ? 'within a second' : `in ${describeDuration(ms)}`;
}

/**
 * Two to five plain sentences from the evidence: what fails where (with the source line when a map had it) and how
 * often (counted from the errors' own times), since which release, which failing requests preceded it in its sessions
 * or trace (or that none did), and where to watch it happen.
 */
export function rootCauseSummary(error: ErrorHeadline, evidence: BurstEvidence, failingTotal: number): string {
  const where = evidence.top_frame ? ` at ${evidence.top_frame}` : '';
  const across = evidence.affected_sessions > 0 ? ` across ${plural(evidence.affected_sessions, 'session')}` : '';
  const sentences = [
    `${headline(error)}${where}, ${plural(evidence.error_count, 'time')} ${burstDuration(evidence)}${across}.`,
  ];
  const quote = quoteSourceLine(evidence.top_frame_source);
  if (quote) sentences.push(quote);
  sentences.push(
    evidence.first_seen_release
      ? `First seen in release ${evidence.first_seen_release}.`
      : `First seen at ${evidence.first_seen_at} (no release recorded).`,
  );
  const request = evidence.failing_requests[0];
  if (request) {
    const outcome = request.status === null ? 'network error' : String(request.status);
    const verb = failingTotal === 1 ? 'correlates' : 'correlate';
    sentences.push(
      `${plural(failingTotal, 'failing request')} ${verb}: ${requestLabel(request)} → ${outcome} (trace ${request.trace_id.slice(0, 4)}…).`,
    );
  } else {
    sentences.push('No failing request preceded it in its sessions or trace.');
  }
  const replay =
    evidence.sessions.find((s) => s.replay_url !== null) ??
    evidence.failing_requests.find((r) => r.replay_url !== null);
  if (replay) sentences.push(`Replay of an affected session: ${replay.replay_url}.`);
  return sentences.join(' ');
}
