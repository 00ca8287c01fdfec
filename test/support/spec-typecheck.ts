/**
 * Type-checks a Playwright spec the server generated (a session export, an issue's reproduction test) under strict
 * TypeScript, as a project that runs it would: written outside the repository, resolving `@playwright/test`,
 * `@svc/playwright` (a reproduction test's fixture, from its workspace's source) and the Node types where such a project
 * has them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

/** The compiler's messages for `spec`: empty when it type-checks. */
export function specTypeErrors(spec: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'svc-spec-'));
  try {
    const file = join(dir, 'generated.spec.ts');
    writeFileSync(file, spec);
    const program = ts.createProgram([file], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      paths: {
        '@playwright/test': [join(ROOT, 'node_modules/@playwright/test')],
        '@svc/playwright': [join(ROOT, 'playwright/src/index.ts')],
      },
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
