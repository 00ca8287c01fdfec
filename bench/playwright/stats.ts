/** Nearest-rank quantile of a list of numbers (copied, not sorted in place). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]) => quantile(values, 0.5);
