const NON_ASCII = /[^\0-\x7f]/;

/**
 * Size of a string once UTF-8 encoded, counted without allocating the bytes. The keepalive quota and the request
 * size limit are in bytes on the wire, while `string.length` counts UTF-16 units (a non-ASCII character is 2-4 bytes).
 * A lone surrogate is counted as the 3 bytes of the U+FFFD that replaces it.
 */
export function utf8Length(text: string): number {
  // The regular expression's native scan skips the ASCII run (most telemetry is ASCII throughout) several times
  // faster than the loop, which counts from the first other character on.
  const first = text.search(NON_ASCII);
  if (first < 0) return text.length;
  let bytes = first;
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
