import { open } from 'node:fs/promises';

const BLOCK = 64 * 1024;
/** A line ends with its cursor (export/lines.ts), so the end of the line is all that need be read to find it. */
const CURSOR_AT_END = /"cursor":"([A-Za-z0-9_-]+)"\}$/;

/**
 * Where an export written to `path` stopped: the cursor of its last whole line, or undefined when it holds none. A
 * line cut off by an interruption is removed from the file first, so appending the rest leaves every line whole.
 */
export async function resumeFile(path: string): Promise<string | undefined> {
  const file = await open(path, 'r+').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!file) return undefined;
  try {
    const { size } = await file.stat();
    const end = await lastNewline(file, size);
    await file.truncate(end + 1);
    if (end < 0) return undefined;
    const length = Math.min(end, 1024);
    const tail = Buffer.alloc(length);
    await file.read(tail, 0, length, end - length);
    const cursor = CURSOR_AT_END.exec(tail.toString('utf8'))?.[1];
    if (!cursor) throw new Error(`${path} does not end with a line of svc-server export: cannot resume it`);
    return cursor;
  } finally {
    await file.close();
  }
}

/** The offset of the last newline in the first `size` bytes of `file`, -1 when there is none. */
async function lastNewline(file: import('node:fs/promises').FileHandle, size: number): Promise<number> {
  const block = Buffer.alloc(BLOCK);
  for (let end = size; end > 0; end -= BLOCK) {
    const start = Math.max(0, end - BLOCK);
    const { bytesRead } = await file.read(block, 0, end - start, start);
    const at = block.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) return start + at;
  }
  return -1;
}
