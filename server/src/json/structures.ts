const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Whether JSON text holds more than `max` objects and arrays, counted without parsing it. JSON.parse turns each `{}`
 * (three bytes) into an object of about 80 bytes, so a 10 MB body of empty objects would take over 250 MB before any
 * check on what it means could run; this scan costs one pass over the bytes and no allocation. Strings are skipped
 * with the native indexOf, so long values (replay payloads) cost little. A body too short to hold more (each object or
 * array takes at least two bytes) is not scanned at all: every request the SDK sends is.
 */
export function exceedsStructures(bytes: Uint8Array, max: number): boolean {
  if (bytes.length <= 2 * max) return false;
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      i = closingQuote(bytes, i);
      if (i < 0) return false; // unterminated: JSON.parse reports it
    } else if ((b === OPEN_BRACE || b === OPEN_BRACKET) && ++count > max) {
      return true;
    }
  }
  return false;
}

/** Index of the quote that ends the string opened at `open`, or -1. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
