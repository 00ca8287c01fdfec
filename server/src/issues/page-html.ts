import { escapeHtml, link, rows } from '../incidents/dashboard';
import type { issueDetail } from './detail';
import { reproductionText, seenInText } from './test-wording';

/** An issue as its detail reads it (docs/issues.md, "The detail"). */
export type IssueDetail = Awaited<ReturnType<typeof issueDetail>>;
type Frame = IssueDetail['stack']['frames'][number];
type Original = NonNullable<Frame['original']>;

/** `2026-11-26 10:45:12 UTC`, in a `<time>` that keeps the exact instant. */
const when = (at: string) =>
  `<time datetime="${escapeHtml(at)}">${escapeHtml(at.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC'))}</time>`;
/** `10:45:12.345`: breadcrumbs are seconds apart, all on the day of the error. */
const clock = (at: string) => `<time datetime="${escapeHtml(at)}">${escapeHtml(at.slice(11, 23))}</time>`;
const seen = (s: { at: string; release: string | null }) =>
  `${when(s.at)}${s.release === null ? '' : ` in release <code>${escapeHtml(s.release)}</code>`}`;
const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** The original lines around the frame, numbered, its own line marked; a long line wraps under its code, not its number. */
function sourceContext(o: Original): string {
  if (!o.context) return '';
  const { start_line: start, lines } = o.context;
  const numbered = lines.map((text, i) => {
    const tag = start + i === o.line ? 'mark' : 'span';
    return `<${tag} class="l"><span class="n" aria-hidden="true">${start + i}</span>${escapeHtml(text)}</${tag}>`;
  });
  return `<pre><code>${numbered.join('')}</code></pre>`;
}

/** One frame: where it is in the original source when a map covered it, with the minified position beside. */
function frameHtml(f: Frame): string {
  const minified = `${f.url}:${f.line}:${f.column}`;
  const o = f.original;
  if (!o) return `<li>${code(f.function)}<div class="where">${escapeHtml(minified)}</div></li>`;
  return `<li>${code(o.function ?? f.function)} <span class="where">${escapeHtml(`${o.file}:${o.line}:${o.column}`)}</span>${sourceContext(o)}<div class="where">minified: ${escapeHtml(`${f.function} at ${minified}`)}</div></li>`;
}

/** The frames in order, each run of frames outside the app folded away (dependencies, the SDK, engine internals). */
function framesHtml(frames: Frame[]): string {
  const runs: Frame[][] = [];
  for (const f of frames) {
    const run = runs.at(-1);
    if (run && run[0]!.in_app === f.in_app) run.push(f);
    else runs.push([f]);
  }
  return runs
    .map((run) => {
      const list = `<ol class="frames">${run.map(frameHtml).join('')}</ol>`;
      if (run[0]!.in_app) return list;
      return `<details><summary>${run.length} ${run.length === 1 ? 'frame' : 'frames'} not in the app</summary>${list}</details>`;
    })
    .join('');
}

/** Why the frames read as minified: the app's files without a map, and the command that uploads theirs. */
function missingMapsHtml(missing: IssueDetail['stack']['missing_maps']): string {
  if (missing === null) return '';
  const files = `<ul>${missing.files.map((f) => `<li>${code(f.url)}${f.debug_id ? ` (debug ID ${code(f.debug_id)})` : ''}</li>`).join('')}</ul>`;
  const release =
    missing.release === null
      ? "<p>The error names no release: name one with the SDK's <code>serviceVersion</code> (the build plugin does), and the same with <code>--release</code>.</p>"
      : '';
  return `<div class="missing-maps"><p><strong>No source map covers ${missing.files.length === 1 ? 'this file' : 'these files'} of the app</strong>, so the frames read as minified:</p>${files}<p>Upload the maps of that build from its output folder (the one served at the site's root); the issue's errors then move to the issue of the original code:</p><pre><code>${escapeHtml(missing.upload_command)}</code></pre>${release}</div>`;
}

function stackHtml(stack: IssueDetail['stack']): string {
  if (stack.raw === null) return '<h2>Stack</h2><p>The newest error came without a stack.</p>';
  const raw = `<details><summary>The stack as the browser sent it</summary><pre><code>${escapeHtml(stack.raw)}</code></pre></details>`;
  return `<h2>Stack</h2>${missingMapsHtml(stack.missing_maps)}${stack.frames.length ? framesHtml(stack.frames) : '<p>No frame of the stack could be read.</p>'}${raw}`;
}

function breadcrumbsHtml(crumbs: IssueDetail['breadcrumbs']): string {
  if (crumbs.length === 0) return '';
  return `<h2>Before the newest error</h2><table class="crumbs"><tr><th>When (UTC)</th><th>What</th><th>Detail</th></tr>${rows(crumbs.map((b) => [clock(b.at), escapeHtml(b.kind), escapeHtml(b.message)]))}</table>`;
}

function sessionsHtml(sessions: IssueDetail['sessions_sample']): string {
  if (sessions.length === 0) return '';
  return `<h2>Affected sessions</h2><p>The newest ones; a session with a replay links to it.</p><table><tr><th>Session</th><th>Last error</th></tr>${rows(sessions.map((s) => [link(s.replay_url, s.session_id), when(s.last_seen)]))}</table>`;
}

function releasesHtml(releases: IssueDetail['releases']): string {
  if (releases.length === 0) return '';
  return `<h2>Releases</h2><table><tr><th>Release</th><th>Events</th><th>First seen</th><th>Last seen</th></tr>${rows(releases.map((r) => [code(r.release), String(r.events), when(r.first_seen), when(r.last_seen)]))}</table>`;
}

/** The console's page of a test run: the same server serves it. */
const runLink = (runId: string) => `/test-run/${encodeURIComponent(runId)}`;

/** Runs of the AI fix's reproduction test that named this issue, newest first, each linked to its run. */
function reproductionsHtml(reproductions: IssueDetail['reproductions']): string {
  if (reproductions.length === 0) return '';
  return `<h2>Reproduction test</h2><ul>${reproductions.map((r) => `<li>${link(runLink(r.run_id), reproductionText(r))}, ${when(r.at)}</li>`).join('')}</ul>`;
}

/** What the status means for the reader, beyond its name. */
function statusNote(issue: IssueDetail): string {
  if (issue.status === 'regressed') return ' — it was resolved and occurred again';
  if (issue.status === 'resolved' && issue.in_next_release)
    return ` — for the release after ${issue.resolved_release ?? 'the one then current'}`;
  return '';
}

/** The title of an issue's page: its type and message. */
export const issueTitle = (issue: IssueDetail) => `${issue.type}: ${issue.message}`;

/** The body of the keyless issue page (`incident` is the signed page of the issue's incident, if it has one). */
export function issuePage(issue: IssueDetail, links: { incident: string | null }): string {
  return `<p><span class="sev ${escapeHtml(issue.status)}">${escapeHtml(issue.status)}</span>${escapeHtml(statusNote(issue))}</p>
<h1>${escapeHtml(issueTitle(issue))}</h1>
<dl><dt>App</dt><dd>${escapeHtml(issue.app)}</dd><dt>Environment</dt><dd>${escapeHtml(issue.env)}</dd>
<dt>Events</dt><dd>${issue.events}</dd><dt>Sessions</dt><dd>${issue.sessions}</dd>
<dt>Seen in</dt><dd>${escapeHtml(seenInText(issue.seen_in))}${issue.caught_in_tests ? ' — caught in tests' : ''}</dd>
<dt>First seen</dt><dd>${seen(issue.first_seen)}</dd><dt>Last seen</dt><dd>${seen(issue.last_seen)}</dd>
${links.incident ? `<dt>Incident</dt><dd>${link(links.incident, 'the incident this issue opened')}</dd>` : ''}
<dt>Issue</dt><dd>${code(issue.id)}</dd></dl>
${reproductionsHtml(issue.reproductions)}${stackHtml(issue.stack)}${breadcrumbsHtml(issue.breadcrumbs)}${sessionsHtml(issue.sessions_sample)}${releasesHtml(issue.releases)}`;
}
