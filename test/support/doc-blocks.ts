/**
 * The shell blocks of a Markdown page (```sh, ```bash, ```shell) and the commands in them, as a reader copies them. A
 * block that cannot run in a test says so in the line right after its closing fence:
 * `<!-- readme-test: not run: <why> -->`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../build/stale';

export interface ShellBlock {
  /** The page, relative to the repository root, e.g. `README.md`. */
  doc: string;
  /** Line of the opening fence, from 1. */
  line: number;
  code: string;
  /** Why it is not run, from its `readme-test: not run:` comment. */
  notRun?: string;
}

const FENCE = /^(\s*)```(\w*)\s*$/;
const NOT_RUN = /^\s*<!-- readme-test: not run: (.+?) -->\s*$/;

export function shellBlocks(doc: string): ShellBlock[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, lang] = open;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (['sh', 'bash', 'shell'].includes(lang!)) {
      const code = lines
        .slice(i + 1, end)
        .map((line) => line.slice(indent!.length))
        .join('\n');
      const notRun = NOT_RUN.exec(lines[end + 1] ?? '')?.[1];
      blocks.push({ doc, line: i + 1, code, ...(notRun ? { notRun } : {}) });
    }
    i = end;
  }
  return blocks;
}

/** The commands of a block: continued lines (`\` at the end) joined, blank and comment-only lines left out. */
export function commandsOf(code: string): string[] {
  const commands: string[] = [];
  let current = '';
  for (const line of code.split('\n')) {
    if (current === '' && /^\s*(#.*)?$/.test(line)) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    commands.push(current + line);
    current = '';
  }
  return commands;
}
