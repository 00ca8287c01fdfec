import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { headline } from '../incidents/detect/root-cause';
import { findIssueRow, newestSessionsOf } from '../issues/store';
import { PlaywrightExport } from '../replay/export/playwright-spec';
import { feedStoredSession } from '../replay/export/stored-session';
import { messagePattern } from './reproduction-error';

/** A Playwright test that replays an affected session up to an issue's error and fails if the error happens. */
export interface ReproductionTest {
  /** Where the test goes in the app's repository. */
  path: string;
  content: string;
  /** The session it was made from. */
  sessionId: string;
}

/** Newest affected sessions looked at for one with a replay that holds a page load before the error. */
const CANDIDATES = 20;
/** Added to the recorded delay between the last action and the error, for a slower machine running the test. */
const WAIT_MARGIN_MS = 5_000;
/** An error that took longer than this after the user's last action is not waited for. */
const MAX_WAIT_MS = 30_000;

/**
 * The reproduction test of an issue (docs/ai-fixes.md, "The reproduction test"): the newest affected session with a
 * replay, exported as a Playwright test (docs/replay-export.md) trimmed to the steps before the session's first error
 * of the issue, with the network served from its recipes, asserting that the error does not happen. Null
 * when the issue does not exist or none of its sessions has a replay that started before the error.
 */
export async function reproductionTest(
  db: Kysely<Database>,
  { projectId, issueId }: { projectId: string; issueId: string },
): Promise<ReproductionTest | null> {
  const issue = await findIssueRow(db, projectId, issueId);
  if (!issue) return null;
  const replayed = (await newestSessionsOf(db, issue, CANDIDATES)).filter((s) => s.hasReplay);
  for (const { sessionId, firstMs: errorMs } of replayed) {
    const exporter = new PlaywrightExport({ stopBeforeMs: errorMs });
    const recipes = await feedStoredSession(db, projectId, sessionId, exporter);
    const waitMs = Math.min(MAX_WAIT_MS, errorMs - (exporter.lastActionAt ?? errorMs) + WAIT_MARGIN_MS);
    const content = exporter.finish({ sessionId, app: issue.app }, recipes, {
      issueId,
      type: issue.error_type,
      headline: headline({ errorType: issue.error_type, sampleMessage: issue.sample_message }),
      messagePattern: messagePattern(issue.message),
      waitMs,
    });
    if (content !== undefined) return { path: `tests/svc/repro-${issueId}.spec.ts`, content, sessionId };
  }
  return null;
}
