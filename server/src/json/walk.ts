/**
 * Searches parsed JSON without recursion. JSON.parse accepts documents nested hundreds of thousands of levels deep, and a
 * recursive walk (or JSON.stringify) overflows the stack a few thousand levels down; an explicit stack does not.
 */

/** One step down from a container: an array index or an object key. */
export type JsonStep = number | string;

interface Frame {
  container: object;
  /** The object's keys; undefined for an array. */
  keys: string[] | undefined;
  size: number;
  /** Index of the next member to visit; the member being visited is `next - 1`. */
  next: number;
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

function frameOf(container: object): Frame {
  const keys = Array.isArray(container) ? undefined : Object.keys(container);
  return { container, keys, size: keys ? keys.length : (container as unknown[]).length, next: 0 };
}

/**
 * The path to the first member (depth first, in document order) for which `test` holds, as the steps from `root`;
 * `[]` when `root` itself matches; undefined when nothing does. `depth` counts the arrays and objects from the root
 * down to the value, the value included when it is one (the root container is at depth 1, a string in it at 1); `key`
 * is the step that reached the value (undefined for the root), so keys can be tested too.
 */
export function findInJson(
  root: unknown,
  test: (value: unknown, depth: number, key: JsonStep | undefined) => boolean,
): JsonStep[] | undefined {
  if (test(root, isContainer(root) ? 1 : 0, undefined)) return [];
  if (!isContainer(root)) return undefined;
  const stack: Frame[] = [frameOf(root)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.size) {
      stack.pop();
      continue;
    }
    const index = top.next++;
    const key = top.keys ? top.keys[index]! : index;
    const value: unknown = top.keys
      ? (top.container as Record<string, unknown>)[key]
      : (top.container as unknown[])[index];
    const container = isContainer(value);
    if (test(value, stack.length + (container ? 1 : 0), key))
      return stack.map(({ keys, next }) => (keys ? keys[next - 1]! : next - 1));
    if (container) stack.push(frameOf(value));
  }
  return undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `root` and `steps` as a JavaScript-like path (`data[3].data.node`, or `channels[0]` with an empty root), cut after
 * `maxSteps` steps with `…` so that a path thousands of levels deep stays readable. Keys that are not identifiers are
 * quoted as JSON strings, which also escapes control characters such as U+0000.
 */
export function formatJsonPath(root: string, steps: readonly JsonStep[], maxSteps = 8): string {
  let path = root;
  for (const step of steps.slice(0, maxSteps)) {
    if (typeof step === 'number') path += `[${step}]`;
    else if (IDENTIFIER.test(step)) path += path === '' ? step : `.${step}`;
    else path += `[${JSON.stringify(step)}]`;
  }
  return steps.length > maxSteps ? `${path}…` : path;
}
