import { renderValue, truncate } from './render';

/** Pulls the next argument for a format directive. */
type Take = () => unknown;

function integerText(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return String(Math.trunc(Number(value)));
  } catch {
    // Number() throws for symbols and for objects whose valueOf throws.
    return 'NaN';
  }
}

function floatText(value: unknown): string {
  try {
    return String(Number(value));
  } catch {
    return 'NaN';
  }
}

/** Expands `%s %d %i %f %o %O %j %c %%` in `format` as browsers do; a directive without an argument stays as is. */
function expandDirectives(format: string, take: Take, remaining: () => number, maxLength: number): string {
  return format.replace(/%[sdifoOjc%]/g, (directive) => {
    if (directive === '%%') return '%';
    if (remaining() === 0) return directive;
    const value = take();
    switch (directive) {
      case '%s':
        return renderValue(value, maxLength);
      case '%d':
      case '%i':
        return integerText(value);
      case '%f':
        return floatText(value);
      case '%c':
        // CSS for the devtools: no meaning outside them.
        return '';
      default:
        return renderValue(value, maxLength);
    }
  });
}

/**
 * The text a console line shows for `args`, at most `maxLength` characters: a leading format string has its
 * directives expanded, then every other argument follows, separated by spaces: strings as they are, errors with
 * their stack, objects as compact JSON (see {@link renderValue}).
 */
export function formatConsoleArguments(args: readonly unknown[], maxLength: number): string {
  let next = 0;
  const take: Take = () => args[next++];
  const remaining = (): number => args.length - next;
  const parts: string[] = [];
  let length = 0;
  const first = args[0];
  if (typeof first === 'string') {
    next = 1;
    const text = first.includes('%') ? expandDirectives(first, take, remaining, maxLength) : first;
    parts.push(text);
    length += text.length;
  }
  while (next < args.length && length <= maxLength) {
    const text = renderValue(take(), maxLength - length);
    parts.push(text);
    length += text.length + 1;
  }
  return truncate(parts.join(' '), maxLength);
}
