/**
 * A tag-value pattern: `*` matches any run of characters (also none), every other character itself, case-sensitive,
 * against the whole value. There is no escape: a literal `*` in a tag value is matched by `*`.
 *
 * Matched without regular expressions: patterns are user input applied to every resource on each sync, and a
 * backtracking `.*a.*a.*…` regex can take polynomial time on a long value; anchored ends plus a left-to-right
 * `indexOf` for each middle piece is linear and exact for `*`-only globs (the leftmost occurrence of each piece
 * leaves the most room for the rest).
 */
export function compilePattern(pattern: string): (value: string) => boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return (value) => value === pattern;
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  return (value) => {
    if (value.length < head.length + tail.length || !value.startsWith(head) || !value.endsWith(tail)) return false;
    const end = value.length - tail.length;
    let at = head.length;
    for (const piece of middle) {
      const found = value.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
