import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface ProfileReport {
  /** Folder `node --cpu-prof-dir` wrote to. */
  dir: string;
  /** Repository root, cut from file names. */
  root: string;
  title: string;
  /** Frames whose inclusive time is shown (the server's code and the database drivers under it). */
  inclusive: RegExp;
}

/**
 * A Node CPU profile (`--cpu-prof`) as markdown, in shares of busy time (idle excluded): inclusive time of the frames
 * `inclusive` selects, self time by function, and self time by file or package. Shared by bench:ingest and
 * bench:notify.
 */
export function cpuProfileTables({ dir, root, title, inclusive: selected }: ProfileReport): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return `(no CPU profile was written to ${dir})`;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(`${root}/`, '');
  const label = (n: ProfileNode) => {
    const where = shortUrl(n.callFrame.url);
    return `${n.callFrame.functionName || '(anonymous)'}${where ? ` ${where}:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const selfByNode = new Map<number, number>();
  profile.samples.forEach((id, i) => selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const self = new Map<string, number>();
  const perFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, dt: number) => m.set(key, (m.get(key) ?? 0) + dt);
  let busy = 0;
  let idle = 0;
  for (const [id, dt] of selfByNode) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    const name = label(node);
    add(self, name, dt);
    const where = shortUrl(node.callFrame.url);
    add(perFile, where ? where.replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, 'node_modules/$1') : name, dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!;
      if (!selected.test(frame.callFrame.url)) continue;
      const key = label(frame);
      if (seen.has(key)) continue; // recursion counts once
      seen.add(key);
      add(inclusive, key, dt);
    }
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `| ${((v / busy) * 100).toFixed(1)} % | \`${k}\` |`)
      .join('\n');
  return [
    `### CPU profile of the server, ${title}: ${(busy / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle (shares of busy time; ${join(dir, file)})`,
    '',
    `Inclusive time:\n\n| total | function |\n|---:|---|\n${top(inclusive, 25)}`,
    '',
    `Self time by function:\n\n| self | function |\n|---:|---|\n${top(self, 20)}`,
    '',
    `Self time by file or package:\n\n| self | file |\n|---:|---|\n${top(perFile, 15)}`,
  ].join('\n');
}
