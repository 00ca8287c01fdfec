import { MAX_MESSAGE_LENGTH, PLACEHOLDER_PATTERN } from '../incidents/detect/normalize-message';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A regular expression source matching every message an issue groups, from its normalised message: each placeholder
 * matches any text, whitespace any whitespace, and a message normalisation cut (`…` at the length cap) any ending.
 */
export function messagePattern(normalised: string): string {
  const cut = normalised.length === MAX_MESSAGE_LENGTH && normalised.endsWith('…');
  const text = cut ? normalised.slice(0, -1) : normalised;
  const parts = text.split(PLACEHOLDER_PATTERN).map((part) => part.split(' ').map(escapeRegExp).join('\\s+'));
  return `^\\s*${parts.join('.+?')}${cut ? '' : '\\s*$'}`;
}
