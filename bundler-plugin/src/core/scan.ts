import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** The extensions of the JavaScript files that get debug IDs and whose maps are uploaded. */
export const JS_FILE = /\.(?:js|mjs|cjs)$/;

/** Paths relative to `dir`, with `/` separators: how the upload names files and the URL prefix is joined to them. */
export const toUploadPath = (dir: string, file: string) => relative(dir, file).split(sep).join('/');

/** Every file under `dir` whose name matches `pattern` (absolute paths, sorted). */
export async function findFiles(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Every JavaScript file under `dir` (absolute paths, sorted), e.g. a build's output directory. */
export const findJsFiles = (dir: string): Promise<string[]> => findFiles(dir, JS_FILE);
