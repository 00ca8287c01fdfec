import type { AnalysisResult } from '../ai/store';

/** Where the fix branch starts, and why there. */
export type BranchBase =
  | { from: 'default'; branch: string; sha: string; releaseSha: string }
  | { from: 'release'; branch: string; sha: string; changed: string[] }
  | { from: 'default-no-release'; branch: string; sha: string; release: string | null };

export interface PullRequestFacts {
  issue: { id: string; type: string; message: string; app: string };
  result: AnalysisResult;
  mode: 'model' | 'heuristic';
  links: { issue: string; incident: string | null; replay: string | null; evidence: string };
  /** The reproduction test's repository path, and the session it was made from; null when no session had a replay. */
  test: { path: string; sessionId: string } | null;
  base: BranchBase;
  files: string[];
}

const MAX_TITLE = 200;
const short = (sha: string) => sha.slice(0, 12);

/** `Fix TypeError: Cannot read …`, cut to GitHub's comfortable length. */
export function pullRequestTitle(issue: PullRequestFacts['issue']): string {
  const title = `Fix ${issue.type}: ${issue.message}`.replace(/\s+/g, ' ');
  return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1)}…`;
}

function baseText(base: BranchBase): string {
  if (base.from === 'default') {
    return `Branched from \`${base.branch}\` at ${short(base.sha)}: the files this patch touches are unchanged there since the release's commit ${short(base.releaseSha)}.`;
  }
  if (base.from === 'release') {
    return `Branched from the release's commit ${short(base.sha)}, not from \`${base.branch}\`: \`${base.branch}\` has changed ${base.changed.map((f) => `\`${f}\``).join(', ')} since. Rebase before merging.`;
  }
  const why =
    base.release === null
      ? 'the issue names no release'
      : `the release "${base.release}" is not a commit of this repository`;
  return `Branched from \`${base.branch}\` at ${short(base.sha)}: ${why}, so the patch was checked against the branch's head.`;
}

function testText(test: PullRequestFacts['test']): string {
  if (!test) return 'No affected session has a replay, so this pull request carries no reproduction test.';
  return `\`${test.path}\` replays session \`${test.sessionId}\` up to the error (its network served from the recorded requests) and fails if the error occurs: it fails on the code before this patch and passes with it.`;
}

/** The pull request's body: what svc found, the links to check it, the test, and where the branch starts. */
export function pullRequestBody(f: PullRequestFacts): string {
  const link = (text: string, url: string | null) => (url ? `[${text}](${url})` : `${text}: none`);
  const source = f.mode === 'model' ? 'a model' : "svc's heuristic (no model is configured)";
  return [
    `svc suggests this fix for the issue **${f.issue.type}: ${f.issue.message}** in \`${f.issue.app}\`, analysed by ${source} (confidence ${Math.round(f.result.confidence * 100)} %).`,
    '',
    '### Root cause',
    f.result.root_cause,
    '',
    f.result.explanation,
    '',
    '### Links',
    `- ${link('Issue', f.links.issue)}: stack, source lines and breadcrumbs`,
    `- ${link('Incident', f.links.incident)}`,
    `- ${link('Replay', f.links.replay)} of the session the test reproduces`,
    `- ${link('Evidence', f.links.evidence)}: what was sent for the analysis and its answer (control-plane API, needs a control key)`,
    '',
    '### Reproduction test',
    testText(f.test),
    '',
    '### Changes',
    ...f.files.map((file) => `- \`${file}\``),
    '',
    baseText(f.base),
    '',
    `<sub>Opened by svc for issue ${f.issue.id}. Links to the issue and incident pages are signed and expire after 30 days.</sub>`,
  ].join('\n');
}
