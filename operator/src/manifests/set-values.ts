import { DEFAULT_VALUES, type ZeroValues } from './values.js';
import { ingestUrlProblem } from '../resource/ingest-url.js';

/** A bad `--set` or an invalid value: the CLI reports it as a usage error and renders nothing. */
export class ValuesError extends Error {
  override name = 'ValuesError';
}

type Json = string | number | boolean | Json[] | { [key: string]: Json };

/** Every settable key (`webhook.timeoutSeconds`, ...), derived from the defaults so the list cannot drift. */
export function valueKeys(node: unknown = DEFAULT_VALUES, prefix = ''): string[] {
  if (!isObject(node)) return [prefix];
  return Object.entries(node).flatMap(([key, child]) => valueKeys(child, prefix ? `${prefix}.${key}` : key));
}

/**
 * Applies Helm-style `key=value` assignments (`--set webhook.timeoutSeconds=5`, `--set
 * webhook.excludedNamespaces={kube-system,monitoring}`) to a copy of `values`. The value is read as the type of the
 * key's default: a number, `true`/`false`, a `{a,b}` list, else a string. Unknown keys are errors, not silently added.
 */
export function applySets(values: ZeroValues, assignments: readonly string[]): ZeroValues {
  const result = structuredClone(values) as unknown as { [key: string]: Json };
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new ValuesError(`--set expects key=value, got "${assignment}"`);
    const path = assignment.slice(0, eq).split('.');
    const raw = assignment.slice(eq + 1);
    let parent: { [key: string]: Json } = result;
    let defaults: unknown = DEFAULT_VALUES;
    for (const [index, key] of path.entries()) {
      const isLeaf = index === path.length - 1;
      const defaultChild = isObject(defaults) ? defaults[key] : undefined;
      if (defaultChild === undefined || (isLeaf && isObject(defaultChild))) {
        throw new ValuesError(`unknown value "${path.join('.')}"; the values are: ${valueKeys().join(', ')}`);
      }
      if (isLeaf) {
        parent[key] = parseAs(defaultChild as Json, raw, path.join('.'));
      } else {
        const child = parent[key];
        if (!isObject(child)) throw new ValuesError(`unknown value "${path.join('.')}"`);
        parent = child as { [key: string]: Json };
        defaults = defaultChild;
      }
    }
  }
  const merged = result as unknown as ZeroValues;
  const problems = validateValues(merged);
  if (problems.length > 0) throw new ValuesError(problems.join('; '));
  return merged;
}

function parseAs(example: Json, raw: string, key: string): Json {
  if (typeof example === 'number') {
    const number = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(number)) throw new ValuesError(`${key} must be a number, got "${raw}"`);
    return number;
  }
  if (typeof example === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new ValuesError(`${key} must be true or false, got "${raw}"`);
    return raw === 'true';
  }
  if (Array.isArray(example)) {
    const inner = raw.startsWith('{') && raw.endsWith('}') ? raw.slice(1, -1) : raw;
    return inner
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
  return raw;
}

// Kubernetes resource.Quantity, as the API server's OpenAPI pattern spells it.
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(\d+(\.\d*)?|\.\d+)))?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** What the API server (or the operator) would reject later, said now and naming the value. */
export function validateValues(values: ZeroValues): string[] {
  const problems: string[] = [];
  const { webhook } = values;
  // The operator runs as non-root with every capability dropped, so it cannot bind a privileged port.
  if (!Number.isInteger(webhook.port) || webhook.port < 1024 || webhook.port > 65535) {
    problems.push(
      `webhook.port must be an integer from 1024 to 65535 (the operator runs as non-root), got ${webhook.port}`,
    );
  }
  // admissionregistration.k8s.io/v1 accepts 1 to 30 seconds.
  if (!Number.isInteger(webhook.timeoutSeconds) || webhook.timeoutSeconds < 1 || webhook.timeoutSeconds > 30) {
    problems.push(`webhook.timeoutSeconds must be an integer from 1 to 30, got ${webhook.timeoutSeconds}`);
  }
  for (const name of webhook.excludedNamespaces) {
    if (!DNS_LABEL.test(name)) problems.push(`webhook.excludedNamespaces: "${name}" is not a namespace name`);
  }
  const quantities: [string, string][] = [
    ['resources.requests.cpu', values.resources.requests.cpu],
    ['resources.requests.memory', values.resources.requests.memory],
    ['resources.limits.memory', values.resources.limits.memory],
    ['ebpf.resources.limits.memory', values.ebpf.resources.limits.memory],
  ];
  for (const [key, quantity] of quantities) {
    if (!QUANTITY.test(quantity))
      problems.push(`${key} must be a Kubernetes quantity such as 512Mi, got "${quantity}"`);
  }
  const images: [string, string][] = [
    ['image.repository', values.image.repository],
    ['agents.nodejs.image', values.agents.nodejs.image],
    ['agents.java.image', values.agents.java.image],
    ['agents.python.image', values.agents.python.image],
    ['ebpf.image', values.ebpf.image],
  ];
  for (const [key, image] of images) {
    if (image.trim() === '' || /\s/.test(image)) problems.push(`${key} must be an image reference, got "${image}"`);
  }
  if (!['Always', 'IfNotPresent', 'Never'].includes(values.image.pullPolicy)) {
    problems.push(`image.pullPolicy must be Always, IfNotPresent or Never, got "${values.image.pullPolicy}"`);
  }
  const ingestUrl = values.ingestUrl === '' ? undefined : ingestUrlProblem(values.ingestUrl, 'ingestUrl');
  if (ingestUrl) problems.push(ingestUrl);
  if (!['debug', 'info', 'warn', 'error'].includes(values.logLevel)) {
    problems.push(`logLevel must be debug, info, warn or error, got "${values.logLevel}"`);
  }
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
