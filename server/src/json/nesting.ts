/**
 * How deep a JSON text nests, read before it is parsed. JSON.parse itself copes with any depth, but what reads the
 * value afterwards (schema validation, JSON.stringify) recurses and overflows the stack thousands of levels down; a
 * document refused here never reaches it.
 */

/**
 * The deepest a document the control plane takes (a request body, an uploaded source map) may nest: none of their
 * schemas asks for more than a handful of levels.
 */
export const CONTROL_MAX_DEPTH = 32;

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text `json` (UTF-8 bytes or a string: the structural characters are the same code in both) opens
 * more than `limit` arrays and objects inside one another. One pass; brackets inside strings do not count. Malformed
 * text is left for the parser to name.
 */
export function nestsDeeperThan(json: Uint8Array | string, limit: number): boolean {
  const codeAt = typeof json === 'string' ? (i: number) => json.charCodeAt(i) : (i: number) => json[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const code = codeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}
