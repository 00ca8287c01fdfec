import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Frames whose inclusive time is worth showing: the server's own code and the database drivers under it. */
const INCLUSIVE = /server\/(src|dist)\/|node_modules\/(kysely|better-sqlite3|pg)\//;

/**
 * The server's CPU profile (`node --cpu-prof`) as markdown: shares of busy time (idle excluded) by file or package
 * (self time) and by function (inclusive time of server code and database drivers).
 */
export function profileTables(dir: string, root: string, title: string): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return `(no CPU profile was written to ${dir})`;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
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
    const where = shortUrl(node.callFrame.url);
    add(perFile, where ? where.replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, 'node_modules/$1') : label(node), dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!;
      if (!INCLUSIVE.test(frame.callFrame.url)) continue;
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
    `#### CPU profile of the server, ${title}: ${(busy / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle (${join(dir, file)})`,
    '',
    `Self time by file or package:\n\n| share | file |\n|---:|---|\n${top(perFile, 15)}`,
    '',
    `Inclusive time of server code and database drivers:\n\n| share | function |\n|---:|---|\n${top(inclusive, 30)}`,
  ].join('\n');
}
