import { encodedMap, FlattenMap } from '@jridgewell/trace-mapping';

/** A map as it is stored: its JSON without `sourcesContent`, and the contents by source index. */
export interface SplitMap {
  index: string;
  contents: ReadonlyArray<string | null>;
}

/**
 * Splits a checked map (validate.ts) into what a lookup always needs and the sources only some frames need: parsing
 * a bundle's sources costs several times its mappings (bench/symbolicate.ts). Index maps are flattened first, so every
 * stored map is a plain one.
 */
export function splitSources(text: string): SplitMap {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const plain =
    'sections' in parsed ? (encodedMap(new FlattenMap(parsed as never)) as unknown as Record<string, unknown>) : parsed;
  const { sourcesContent, debugId: _debugId, debug_id: _debugIdOld, ...index } = plain;
  return {
    index: JSON.stringify(index),
    contents: Array.isArray(sourcesContent) ? (sourcesContent as Array<string | null>) : [],
  };
}
