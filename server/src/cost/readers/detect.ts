import { curFormat } from './formats/cur';
import { cur2Format } from './formats/cur2';
import { focusFormat } from './formats/focus';
import { FORMAT_LABELS, ReportFormatError, type ExportFormat, type FormatSpec } from './formats/types';

export const FORMATS: Record<ExportFormat, FormatSpec> = { cur: curFormat, cur2: cur2Format, focus: focusFormat };

/**
 * The export format a header belongs to, or null. Legacy CUR Parquet and CUR 2.0 share their snake_case names; a
 * header with per-tag columns (`resource_tags_user_team`) or `product_product_name` is the legacy report, anything
 * else CUR 2.0 (the two are read the same way but for tags and product name, so a minimal header reads right either way).
 */
export function detectFormat(columns: readonly string[]): ExportFormat | null {
  const fits = (Object.keys(FORMATS) as ExportFormat[]).filter(
    (format) => FORMATS[format].missing(columns).length === 0,
  );
  if (fits.includes('cur') && fits.includes('cur2')) {
    const legacy = columns.some(
      (name) => name.includes('/') || name.startsWith('resource_tags_') || name === 'product_product_name',
    );
    return legacy ? 'cur' : 'cur2';
  }
  return fits[0] ?? null;
}

/** The format to read a header with: the one asked for (its missing columns named), or the detected one. */
export function formatFor(columns: readonly string[], format?: ExportFormat): FormatSpec {
  if (format !== undefined) return FORMATS[format];
  const detected = detectFormat(columns);
  if (detected !== null) return FORMATS[detected];
  // Name what is missing for the closest format, so a truncated or hand-edited header is easy to fix.
  const closest = (Object.values(FORMATS) as FormatSpec[])
    .map((spec) => ({ spec, missing: spec.missing(columns) }))
    .sort((a, b) => a.missing.length - b.missing.length)[0]!;
  throw new ReportFormatError(
    `the report's columns match no known export format (legacy CUR, CUR 2.0, FOCUS 1.0); ` +
      `closest is ${FORMAT_LABELS[closest.spec.format]}, which lacks ${closest.missing.join(', ')}`,
    closest.missing,
  );
}
