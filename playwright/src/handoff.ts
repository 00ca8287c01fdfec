import { relative, sep } from 'node:path';
import type { TestInfo } from '@playwright/test';
import { ciInfo } from './ci';

/** What the page gets as `window.__SVC_TEST__` before any of its scripts run (the SDK reads it at init). */
export interface TestHandoff {
  runId: string;
  testId: string;
  /** The title path joined with ' > '. */
  title: string;
  /** Describe titles and the test's own title (the file and project are not in it). */
  titlePath: string[];
  /** Relative to the Playwright config's rootDir, with forward slashes. */
  file: string;
  line: number;
  project: string;
  retry: number;
  /** The worker's parallelIndex (0..workers-1), stable across worker restarts. */
  worker: number;
  commit?: string;
  branch?: string;
}

/** A path relative to `rootDir` with forward slashes, whatever the platform. */
export function relativeFile(rootDir: string, file: string): string {
  return relative(rootDir, file).split(sep).join('/');
}

/** The title path Playwright gives minus its leading file entry: testInfo.titlePath is [file, ...describes, title]. */
export function describeTitles(titlePath: readonly string[]): string[] {
  return titlePath.slice(1);
}

/** The handoff of the test `testInfo` describes, in run `runId`. */
export function testHandoff(testInfo: TestInfo, runId: string): TestHandoff {
  const titlePath = describeTitles(testInfo.titlePath);
  const { commit, branch } = ciInfo();
  return {
    runId,
    testId: testInfo.testId,
    title: titlePath.join(' > '),
    titlePath,
    file: relativeFile(testInfo.config.rootDir, testInfo.file),
    line: testInfo.line,
    project: testInfo.project.name,
    retry: testInfo.retry,
    worker: testInfo.parallelIndex,
    ...(commit !== undefined && { commit }),
    ...(branch !== undefined && { branch }),
  };
}

/** The init script's source: sets the handoff in every frame, before the page's own scripts. */
export function handoffScript(handoff: TestHandoff): string {
  // JSON is valid JavaScript; `<` is escaped anyway so no title can end an inline script.
  return `window.__SVC_TEST__ = ${JSON.stringify(handoff).replace(/</g, '\\u003c')};`;
}
