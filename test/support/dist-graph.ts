/**
 * Reads the module graph of the ESM build: which files an entry loads eagerly (static imports) and which it only
 * loads on demand (dynamic `import()`). Rollup's ESM output writes every relative import as a string literal, so
 * matching the import forms is exact here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const STATIC_IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w*${}\s,]+\s*from\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const BARE_STATIC_IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w*${}\s,]+\s*from\s*)?['"]([^.'"][^'"]*)['"]/g;

function matches(pattern: RegExp, code: string): string[] {
  return [...code.matchAll(pattern)].map((match) => match[1] ?? '');
}

export interface EsmGraph {
  /** Files loaded when the entry is imported, entry first, relative to the dist folder. */
  readonly eager: string[];
  /** Files referenced only through `import()`, relative to the dist folder. */
  readonly lazy: string[];
  /** Packages imported statically by any eager file. */
  readonly eagerPackages: string[];
}

export function esmGraph(distDir: string, entry: string): EsmGraph {
  const eager: string[] = [];
  const lazy = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (eager.includes(file)) return;
    eager.push(file);
    const code = readFileSync(join(distDir, file), 'utf8');
    for (const specifier of matches(STATIC_IMPORT, code))
      visit(relative(distDir, join(dirname(join(distDir, file)), specifier)));
    for (const specifier of matches(DYNAMIC_IMPORT, code))
      lazy.add(relative(distDir, join(dirname(join(distDir, file)), specifier)));
    for (const specifier of matches(BARE_STATIC_IMPORT, code)) packages.add(specifier);
  };
  visit(entry);
  return { eager, lazy: [...lazy].filter((file) => !eager.includes(file)), eagerPackages: [...packages] };
}
