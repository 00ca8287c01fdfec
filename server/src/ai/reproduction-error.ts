import { MAX_MESSAGE_LENGTH } from '../incidents/detect/normalize-message';

/** The placeholders normalizeMessage (incidents/detect/normalize-message.ts) puts where occurrences of one bug differ. */
const PLACEHOLDER = /<(?:url|email|uuid|str|token|hex|n)>/g;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A regular expression source matching every message an issue groups, from its normalised message: each placeholder
 * matches any text, whitespace any whitespace, and a message normalisation cut (`…` at the length cap) any ending.
 */
export function messagePattern(normalised: string): string {
  const cut = normalised.length === MAX_MESSAGE_LENGTH && normalised.endsWith('…');
  const text = cut ? normalised.slice(0, -1) : normalised;
  const parts = text.split(PLACEHOLDER).map((part) => part.split(' ').map(escapeRegExp).join('\\s+'));
  return `^\\s*${parts.join('.+?')}${cut ? '' : '\\s*$'}`;
}
