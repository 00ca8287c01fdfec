import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

/** The chart, beside the committed manifests. */
export const CHART_DIR = join(__dirname, '../../../operator/deploy/helm/svc-zero');

/**
 * `helm template` for the svc-zero chart without helm (which cannot be installed on these machines): an evaluator of
 * exactly the Go template subset the chart uses, the way Helm evaluates it: {{ pipeline }}, {{- / -}} whitespace
 * trimming, template comments, if/else/end, range/end (dot = element), define/include, and the functions quote,
 * default, toYaml, nindent, indent. Anything outside the subset, and any missing value, is an error (Helm would print
 * nothing and hide a typo). The chart's README documents the subset.
 */
export type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'output'; pipeline: string }
  | { kind: 'if'; pipeline: string; then: TemplateNode[]; else: TemplateNode[] }
  | { kind: 'range'; pipeline: string; body: TemplateNode[] };
interface TemplateScope {
  root: Record<string, unknown>;
  dot: unknown;
  defines: Map<string, TemplateNode[]>;
}

export function parseTemplate(source: string, defines: Map<string, TemplateNode[]>): TemplateNode[] {
  // Tokenize into text and actions, applying the trim markers.
  const tokens: ({ text: string } | { action: string })[] = [];
  let rest = source;
  while (rest.length > 0) {
    const open = rest.indexOf('{{');
    if (open < 0) {
      tokens.push({ text: rest });
      break;
    }
    let text = rest.slice(0, open);
    const close = rest.indexOf('}}', open);
    if (close < 0) throw new Error(`unclosed action in: ${rest.slice(open, open + 40)}`);
    let action = rest.slice(open + 2, close);
    if (action.startsWith('- ')) {
      text = text.replace(/\s+$/, '');
      action = action.slice(2);
    }
    let trimNext = false;
    if (action.endsWith(' -')) {
      trimNext = true;
      action = action.slice(0, -2);
    }
    tokens.push({ text }, { action: action.trim() });
    rest = rest.slice(close + 2);
    if (trimNext) rest = rest.replace(/^\s+/, '');
  }
  // Build the tree.
  const root: TemplateNode[] = [];
  const stack: {
    nodes: TemplateNode[];
    open?: { kind: 'if' | 'range' | 'define'; node?: TemplateNode; name?: string; inElse?: boolean };
  }[] = [{ nodes: root }];
  const current = () => stack[stack.length - 1]!;
  for (const token of tokens) {
    if ('text' in token) {
      if (token.text) current().nodes.push({ kind: 'text', text: token.text });
      continue;
    }
    const action = token.action;
    if (action.startsWith('/*')) {
      if (!action.endsWith('*/')) throw new Error(`bad comment: ${action}`);
    } else if (action.startsWith('if ')) {
      const node: TemplateNode = { kind: 'if', pipeline: action.slice(3).trim(), then: [], else: [] };
      current().nodes.push(node);
      stack.push({ nodes: node.then, open: { kind: 'if', node } });
    } else if (action === 'else') {
      const frame = current();
      if (frame.open?.kind !== 'if' || frame.open.inElse) throw new Error('else without if');
      const node = frame.open.node as Extract<TemplateNode, { kind: 'if' }>;
      stack[stack.length - 1] = { nodes: node.else, open: { ...frame.open, inElse: true } };
    } else if (action.startsWith('range ')) {
      const node: TemplateNode = { kind: 'range', pipeline: action.slice(6).trim(), body: [] };
      current().nodes.push(node);
      stack.push({ nodes: node.body, open: { kind: 'range', node } });
    } else if (action.startsWith('define ')) {
      const name = JSON.parse(action.slice(7).trim()) as string;
      const body: TemplateNode[] = [];
      defines.set(name, body);
      stack.push({ nodes: body, open: { kind: 'define', name } });
    } else if (action === 'end') {
      if (stack.length === 1) throw new Error('end without a block');
      stack.pop();
    } else if (/^(with|block|template|else if)\b/.test(action) || action.includes(':=') || action.startsWith('$')) {
      throw new Error(`outside the chart's template subset: {{ ${action} }}`);
    } else {
      current().nodes.push({ kind: 'output', pipeline: action });
    }
  }
  if (stack.length !== 1) throw new Error('unclosed block');
  return root;
}

function splitWords(command: string): string[] {
  return command.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
}

function evalArg(word: string, scope: TemplateScope): unknown {
  if (word.startsWith('"')) return JSON.parse(word);
  if (/^-?\d+$/.test(word)) return Number(word);
  if (word === '.') return scope.dot;
  if (word.startsWith('.')) {
    let value: unknown = scope.dot;
    for (const key of word.slice(1).split('.')) {
      if (typeof value !== 'object' || value === null || !(key in value)) throw new Error(`missing value ${word}`);
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  }
  throw new Error(`outside the chart's template subset: ${word}`);
}

const FUNCTIONS: Record<string, (scope: TemplateScope, ...args: unknown[]) => unknown> = {
  quote: (_scope, value) => JSON.stringify(String(value)),
  default: (_scope, fallback, value) => (truthy(value) ? value : fallback),
  // Helm's toYaml: sorted keys (Go maps), no trailing newline.
  toYaml: (_scope, value) => toYaml(value, { sortMapEntries: true }).replace(/\n$/, ''),
  nindent: (_scope, width, text) => `\n${indentLines(String(text), Number(width))}`,
  indent: (_scope, width, text) => indentLines(String(text), Number(width)),
  include: (scope, name, dot) => {
    const body = scope.defines.get(String(name));
    if (!body) throw new Error(`include of undefined template ${String(name)}`);
    return renderNodes(body, { ...scope, dot });
  },
};

const indentLines = (text: string, width: number) =>
  text
    .split('\n')
    .map((line) => ' '.repeat(width) + line)
    .join('\n');
const truthy = (value: unknown) =>
  !(
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && Object.keys(value).length === 0)
  );

function evalPipeline(pipeline: string, scope: TemplateScope): unknown {
  let value: unknown;
  pipeline.split('|').forEach((command, index) => {
    const [head, ...words] = splitWords(command.trim());
    if (head === undefined) throw new Error(`empty command in ${pipeline}`);
    const fn = FUNCTIONS[head];
    const args = words.map((word) => evalArg(word, scope));
    if (index > 0) {
      if (!fn) throw new Error(`unknown function ${head}`);
      value = fn(scope, ...args, value);
    } else {
      value = fn ? fn(scope, ...args) : (noArguments(head, words), evalArg(head, scope));
    }
  });
  return value;
}

export function renderNodes(nodes: TemplateNode[], scope: TemplateScope): string {
  return nodes
    .map((node) => {
      switch (node.kind) {
        case 'text':
          return node.text;
        case 'output': {
          const value = evalPipeline(node.pipeline, scope);
          if (typeof value === 'object' && value !== null)
            throw new Error(`{{ ${node.pipeline} }} prints a map or list; use toYaml`);
          return String(value);
        }
        case 'if':
          return renderNodes(truthy(evalPipeline(node.pipeline, scope)) ? node.then : node.else, scope);
        case 'range': {
          const list = evalPipeline(node.pipeline, scope);
          if (!Array.isArray(list)) throw new Error(`range over a non-list: ${node.pipeline}`);
          return list.map((item) => renderNodes(node.body, { ...scope, dot: item })).join('');
        }
      }
    })
    .join('');
}

/** Renders every template of the chart with `values` over values.yaml, as `helm template` would: file name → text. */
export function renderChart(overrides: Record<string, unknown> = {}): Map<string, string> {
  const chart = parseYaml(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  const values = deepMerge(parseYaml(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')), overrides);
  const root = {
    Values: values,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Release: { Name: 'svc-zero', Namespace: 'default', Service: 'Helm' },
  };
  const defines = new Map<string, TemplateNode[]>();
  const dir = join(CHART_DIR, 'templates');
  const files = readdirSync(dir).sort();
  const parsed = files.map((file) => [file, parseTemplate(readFileSync(join(dir, file), 'utf8'), defines)] as const);
  const out = new Map<string, string>();
  for (const [file, nodes] of parsed) {
    if (file.startsWith('_')) continue; // helpers only define templates
    out.set(file, renderNodes(nodes, { root, dot: root, defines }));
  }
  return out;
}

export function deepMerge(base: unknown, over: unknown): unknown {
  if (
    typeof base !== 'object' ||
    base === null ||
    Array.isArray(base) ||
    typeof over !== 'object' ||
    over === null ||
    Array.isArray(over)
  ) {
    return over === undefined ? base : over;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(over)) out[key] = deepMerge(out[key], value);
  return out;
}

function noArguments(head: string, words: string[]): void {
  if (words.length > 0)
    throw new Error(`${head} is not a function of the template subset, yet it is given arguments: ${words.join(' ')}`);
}
