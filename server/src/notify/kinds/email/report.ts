import {
  analysisUrl,
  awaitsAcknowledgement,
  linkedPage,
  noticeHeadline,
  noticeSubject,
  offersResolve,
  singleLine,
} from '../notice-wording';
import type { Notice, NoticeSeverity } from '../types';

/** An incident (or issue) e-mail: the subject and the two alternative bodies. */
export interface EmailReport {
  subject: string;
  text: string;
  html: string;
}

const SEVERITY_COLOUR: Record<NoticeSeverity, string> = {
  critical: '#b91c1c',
  high: '#c2410c',
  medium: '#a16207',
  warning: '#b45309',
  low: '#1d4ed8',
  info: '#4b5563',
};

/**
 * The incident report as an e-mail: subject `[CRITICAL] Checkout fails` (`[CRITICAL] Resolved: …` for later events),
 * the facts (severity, status, services, environment, detection time), the root cause, and links to the dashboard,
 * to acknowledge (while nobody has) and to resolve (until resolved); an issue's report (`[WARNING] Regressed: …`)
 * links to the issue only. The plain-text body says the same as the HTML.
 */
export function renderEmailReport(notice: Notice): EmailReport {
  const facts = reportFacts(notice);
  const links = reportLinks(notice);
  return {
    subject: noticeHeadline(notice),
    text: textReport(notice, facts, links),
    html: htmlReport(notice, facts, links),
  };
}

type Labelled = Array<[label: string, value: string]>;

function reportFacts(notice: Notice): Labelled {
  const { payload } = notice;
  return [
    ['Severity', payload.severity],
    ['Status', notice.status],
    ['Services', payload.services.join(', ') || '—'],
    ['Environment', payload.env],
    ['Detected', notice.detected_at],
    noticeSubject(notice),
  ];
}

function reportLinks(notice: Notice): Labelled {
  const links: Labelled = [[`Open the ${linkedPage(notice)}`, notice.payload.dashboard_url]];
  if (awaitsAcknowledgement(notice)) links.push(['Acknowledge', notice.acknowledge_url]);
  if (offersResolve(notice)) links.push(['Resolve', notice.resolve_url]);
  const analysis = analysisUrl(notice);
  if (analysis) links.push(['Root-cause analysis', analysis]);
  return links;
}

const TEST_NOTE = 'This is a test notification: no incident happened.';

function textReport(notice: Notice, facts: Labelled, links: Labelled): string {
  const width = Math.max(...facts.map(([label]) => label.length)) + 2;
  return [
    singleLine(notice.payload.title),
    ...(notice.test ? ['', TEST_NOTE] : []),
    '',
    ...facts.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`),
    '',
    'Root cause',
    notice.payload.root_cause_summary,
    '',
    ...links.map(([label, url]) => `${label}: ${url}`),
    '',
  ].join('\n');
}

function htmlReport(notice: Notice, facts: Labelled, links: Labelled): string {
  const { payload } = notice;
  const colour = SEVERITY_COLOUR[payload.severity];
  const rows = facts.map(
    ([label, value]) =>
      `<tr><th align="left" style="padding:4px 16px 4px 0;color:#4b5563;font-weight:normal">${html(label)}</th><td style="padding:4px 0">${html(value)}</td></tr>`,
  );
  const buttons = links.map(
    ([label, url]) =>
      `<a href="${html(url)}" style="display:inline-block;margin:0 8px 8px 0;padding:10px 16px;border-radius:4px;background:#111827;color:#ffffff;text-decoration:none">${html(label)}</a>`,
  );
  return [
    '<!doctype html>',
    // The report's words are English: lang tells screen readers and translators so.
    `<html lang="en"><head><meta charset="utf-8"><title>${html(noticeHeadline(notice))}</title></head>`,
    '<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111827">',
    notice.test ? `<p style="padding:8px 12px;background:#fef3c7">${html(TEST_NOTE)}</p>` : '',
    `<p style="margin:0"><span style="display:inline-block;padding:2px 8px;border-radius:4px;background:${colour};color:#ffffff;font-weight:bold">${html(payload.severity.toUpperCase())}</span></p>`,
    `<h1 style="font-size:20px;margin:12px 0">${html(singleLine(payload.title))}</h1>`,
    `<table cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin-bottom:16px">${rows.join('')}</table>`,
    '<h2 style="font-size:16px;margin:16px 0 8px">Root cause</h2>',
    `<p style="white-space:pre-wrap;margin:0 0 16px">${html(payload.root_cause_summary)}</p>`,
    `<p>${buttons.join('')}</p>`,
    '</body></html>',
  ].join('\n');
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escaped for HTML text and quoted attribute values alike. */
const html = (text: string): string => text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
