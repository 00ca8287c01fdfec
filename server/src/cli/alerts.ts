import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { UsageError } from './resolve';

export const ALERTS_USAGE = `Alert rules (docs/alerts.md; over the API, at --url or SVC_URL with --control-key or SVC_CONTROL_KEY):
  svc-server alerts list                       the project's rules: id, state, last value, name
  svc-server alerts create --file rule.json    creates the rule the file holds (the API's rule JSON); prints it
  svc-server alerts delete ID
  svc-server alerts preview --file rule.json [--from ISO] [--to ISO]
      the rule's value at each step of the range (default: the last 7 days) and where it would have fired`;

type Out = (line: string) => void;

interface Rule {
  id: string;
  name: string;
  state: string;
  last_value: number | null;
  enabled: boolean;
}
interface Preview {
  step_seconds: number;
  points: Array<{ t: string; value: number | null; baseline?: number | null }>;
  threshold: number | null;
  firings: Array<{ start: string; end: string | null }>;
}

/** The control plane at `url` with a control key; a refusal becomes an Error with the API's message. */
function controlPlane(url: string, key: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url.replace(/\/$/, '')}/control-plane/alert-rules${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return null as T;
    const answer = (await res.json()) as T & { error?: { message: string } };
    if (!res.ok) throw new Error(`${method} /control-plane/alert-rules${path}: ${res.status} ${answer.error?.message}`);
    return answer;
  };
}

async function ruleFile(file: string | undefined, action: string): Promise<Record<string, unknown>> {
  if (file === undefined) throw new UsageError(`alerts ${action} needs --file rule.json`);
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

const valueText = (v: number | null | undefined) => (v === null || v === undefined ? 'no data' : String(v));

function printPreview(p: Preview, out: Out): void {
  out(`step ${p.step_seconds} s, threshold ${valueText(p.threshold)}`);
  for (const point of p.points)
    out(
      `${point.t}  ${valueText(point.value)}${point.baseline !== undefined ? `  (baseline ${valueText(point.baseline)})` : ''}`,
    );
  out(p.firings.length === 0 ? 'would not have fired' : `would have fired ${p.firings.length} time(s):`);
  for (const f of p.firings) out(`  from ${f.start} to ${f.end ?? '(still firing)'}`);
}

/** Runs `alerts list|create|delete|preview` against a server's API. Returns the process exit code. */
export async function runAlertsCommand(argv: readonly string[], env: NodeJS.ProcessEnv, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      'control-key': { type: 'string' },
      file: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
    },
  });
  const [action, id, ...extra] = positionals;
  const takesId = action === 'delete';
  if (!['list', 'create', 'delete', 'preview'].includes(action ?? '') || (id !== undefined) !== takesId || extra.length)
    throw new UsageError(`usage: alerts list | create --file F | delete ID | preview --file F\n${ALERTS_USAGE}`);
  const url = values.url ?? env.SVC_URL;
  const key = values['control-key'] ?? env.SVC_CONTROL_KEY;
  if (!url) throw new UsageError('alerts needs the server: --url URL (or SVC_URL)');
  if (!key) throw new UsageError('alerts needs a control key: --control-key KEY (or SVC_CONTROL_KEY)');
  const call = controlPlane(url, key);
  if (action === 'list') {
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page: { data: Rule[]; next_cursor: string | null } = await call('GET', `?limit=500${query}`);
      for (const r of page.data)
        out(
          `${r.id}  ${(r.enabled ? r.state : 'disabled').padEnd(8)}  ${valueText(r.last_value).padEnd(10)}  ${r.name}`,
        );
      cursor = page.next_cursor;
    } while (cursor !== null);
  } else if (action === 'create') {
    out(JSON.stringify(await call<Rule>('POST', '', await ruleFile(values.file, action)), null, 2));
  } else if (action === 'delete') {
    await call('DELETE', `/${encodeURIComponent(id!)}`);
    out(`deleted ${id}`);
  } else {
    const range = { ...(values.from && { from: values.from }), ...(values.to && { to: values.to }) };
    const { name: _name, ...rule } = await ruleFile(values.file, 'preview');
    printPreview(await call<Preview>('POST', '/preview', { ...rule, ...range }), out);
  }
  return 0;
}
