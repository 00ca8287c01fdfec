import type { Language } from '../resource/types.js';

/**
 * Spellings people use for a language in `SVC_LANGUAGE`, the `svc.io/language` label and `spec.languageHints`.
 * JVM languages map to `java` because the Java agent instruments the JVM, not the source language.
 */
const ALIASES: Readonly<Record<string, Language>> = {
  node: 'nodejs',
  nodejs: 'nodejs',
  'node.js': 'nodejs',
  javascript: 'nodejs',
  js: 'nodejs',
  typescript: 'nodejs',
  ts: 'nodejs',
  java: 'java',
  jvm: 'java',
  kotlin: 'java',
  scala: 'java',
  groovy: 'java',
  python: 'python',
  python3: 'python',
  py: 'python',
  go: 'go',
  golang: 'go',
  dotnet: 'dotnet',
  '.net': 'dotnet',
  net: 'dotnet',
  csharp: 'dotnet',
  'c#': 'dotnet',
  fsharp: 'dotnet',
  aspnet: 'dotnet',
  aspnetcore: 'dotnet',
  ruby: 'ruby',
  rb: 'ruby',
  php: 'php',
};

/** `'node'|'nodejs'|'javascript'|'js'` → `'nodejs'` and so on; undefined for anything else (case and spaces ignored). */
export function normalizeLanguage(value: string): Language | undefined {
  const key = value.trim().toLowerCase();
  return Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
}
