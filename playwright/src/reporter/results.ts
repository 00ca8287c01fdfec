import type { FullConfig, TestCase, TestResult } from '@playwright/test/reporter';
import { relativeFile } from '../handoff';

/** A test attempt as `POST /control-plane/test-runs/{run_id}/results` takes it (docs/playwright.md, "What is sent"). */
export interface ResultPayload {
  test_id: string;
  file: string;
  line: number;
  title_path: string[];
  project: string;
  retry: number;
  status: TestResult['status'];
  expected_status: TestCase['expectedStatus'];
  duration_ms: number;
  started_at: string;
  error?: { message: string; stack?: string; location?: { file: string; line: number; column: number } };
  annotations: Array<{ type: string; description?: string }>;
  tags: string[];
  attachments: string[];
}

/**
 * The server's bounds (server/src/test-runs/schemas.ts): longer texts are cut here so that one huge stack does not
 * get a whole batch refused; lists beyond their bound are cut too.
 */
export const LIMITS = {
  message: 4096,
  stack: 16_384,
  title: 1024,
  titlePath: 32,
  annotations: 50,
  description: 4096,
  tags: 50,
  attachments: 100,
  name: 256,
  file: 1024,
} as const;

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
/** Playwright colours its error messages for terminals. */
const plain = (text: string) => text.replace(ANSI, '');

/**
 * Describe titles and the test's title: Playwright's titlePath() is [root '', project, file, ...describes, title].
 * The fixture's handoff (testInfo.titlePath minus the file) gives the same list.
 */
export const titlePathOf = (test: TestCase): string[] => test.titlePath().slice(3);

function errorOf(result: TestResult, rootDir: string): ResultPayload['error'] {
  const e = result.error ?? result.errors[0];
  if (!e) return undefined;
  const message = clip(plain(e.message ?? e.value ?? 'error'), LIMITS.message);
  return {
    message,
    ...(e.stack !== undefined && { stack: clip(plain(e.stack), LIMITS.stack) }),
    ...(e.location && {
      location: {
        file: clip(relativeFile(rootDir, e.location.file), LIMITS.file),
        line: e.location.line,
        column: e.location.column,
      },
    }),
  };
}

/** Annotations of this attempt: TestResult.annotations (Playwright >= 1.52) holds what the fixture added during it. */
function annotationsOf(test: TestCase, result: TestResult): ResultPayload['annotations'] {
  const list = (result as Partial<Pick<TestResult, 'annotations'>>).annotations ?? test.annotations;
  return list.slice(0, LIMITS.annotations).map((a) => ({
    type: clip(a.type, LIMITS.name),
    ...(a.description !== undefined && { description: clip(a.description, LIMITS.description) }),
  }));
}

/** One attempt of `test` as the server takes it. */
export function resultPayload(test: TestCase, result: TestResult, config: Pick<FullConfig, 'rootDir'>): ResultPayload {
  const titles = titlePathOf(test);
  const error = errorOf(result, config.rootDir);
  return {
    test_id: test.id,
    file: clip(relativeFile(config.rootDir, test.location.file), LIMITS.file),
    line: test.location.line,
    title_path: (titles.length > 0 ? titles : [test.title]).slice(-LIMITS.titlePath).map((t) => clip(t, LIMITS.title)),
    project: clip(test.parent.project()?.name ?? '', LIMITS.name),
    retry: result.retry,
    status: result.status,
    expected_status: test.expectedStatus,
    duration_ms: Math.max(0, result.duration),
    started_at: result.startTime.toISOString(),
    ...(error && { error }),
    annotations: annotationsOf(test, result),
    // TestCase.tags arrived in Playwright 1.42.
    tags: ((test as Partial<Pick<TestCase, 'tags'>>).tags ?? []).slice(0, LIMITS.tags).map((t) => clip(t, LIMITS.name)),
    attachments: result.attachments.slice(0, LIMITS.attachments).map((a) => clip(a.name, LIMITS.file)),
  };
}
