/** Cuts `text` to at most `max` characters (code points, so no emoji is split), ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}
