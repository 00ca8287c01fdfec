/**
 * `labelSelector` and `fieldSelector` query parameters, parsed the way kube-apiserver reads them. A selector that does
 * not parse is a 400, as on a real server.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { badRequest } from './status.js';

export type Selector = (object: KubernetesObject) => boolean;

const everything: Selector = () => true;

/** Splits on commas outside parentheses (`env in (a,b),tier=web`). */
function requirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function labelRequirement(text: string): Selector {
  const labels = (object: KubernetesObject) => object.metadata?.labels ?? {};
  const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(text);
  if (set) {
    const [, key = '', operator, list = ''] = set;
    const values = list.split(',').map((value) => value.trim());
    return operator === 'in'
      ? (object) => values.includes(labels(object)[key] ?? '\u0000')
      : (object) => !values.includes(labels(object)[key] ?? '\u0000');
  }
  const compare = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(text);
  if (compare) {
    const [, key = '', operator, value = ''] = compare;
    return operator === '!=' ? (object) => labels(object)[key] !== value : (object) => labels(object)[key] === value;
  }
  const absent = /^!([^\s!=]+)$/.exec(text);
  if (absent) return (object) => !(absent[1]! in labels(object));
  if (/^[^\s!=(),]+$/.test(text)) return (object) => text in labels(object);
  throw badRequest(`unable to parse requirement: found '${text}', expected: identifier`);
}

export function parseLabelSelector(text: string | null): Selector {
  if (!text) return everything;
  const all = requirements(text).map(labelRequirement);
  return (object) => all.every((matches) => matches(object));
}

/** Reads a dotted field path (`metadata.name`, `status.phase`, `spec.nodeName`) as a string, '' when absent. */
function field(object: KubernetesObject, path: string): string {
  let value: unknown = object;
  for (const part of path.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value === undefined || value === null ? '' : String(value);
}

export function parseFieldSelector(text: string | null): Selector {
  if (!text) return everything;
  const all = requirements(text).map((part): Selector => {
    const match = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const [, path = '', operator, value = ''] = match;
    return operator === '!=' ? (object) => field(object, path) !== value : (object) => field(object, path) === value;
  });
  return (object) => all.every((matches) => matches(object));
}
