import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../src/pipeline/utf8';

describe('utf8Length', () => {
  it('counts what TextEncoder writes: ASCII (the fast path), 2-, 3- and 4-byte characters, lone surrogates as U+FFFD', () => {
    const texts = [
      '',
      'plain ASCII {"a":1}',
      'é',
      'ASCII first, then é',
      'a€b',
      '😀',
      'x😀y',
      '\ud800',
      'a\ud800b',
      '\udc00z',
      '\u0000\u007f\u0080',
    ];
    for (const text of [...texts, `${'long ASCII run '.repeat(500)}ü`])
      expect(utf8Length(text), text).toBe(new TextEncoder().encode(text).length);
  });
});
