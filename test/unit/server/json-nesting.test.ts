import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../../server/src/json/nesting';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects inside one another, in bytes and in strings alike', () => {
    for (const json of [bytes('{"a":[{"b":[1]}]}'), '{"a":[{"b":[1]}]}']) {
      expect(nestsDeeperThan(json, 4)).toBe(false);
      expect(nestsDeeperThan(json, 3)).toBe(true);
    }
    expect(nestsDeeperThan('[[],[],[[]]]', 2)).toBe(true);
    expect(nestsDeeperThan('[[],[],[]]', 2)).toBe(false);
    expect(nestsDeeperThan('"plain"', 0)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan('{"a":"[[[{{{"}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"[[[","b":"\\\\"}', 1)).toBe(false);
    expect(nestsDeeperThan(bytes('{"é[":"[ü{"}'), 1)).toBe(false);
    expect(nestsDeeperThan('{"a\\"":[[1]]}', 2)).toBe(true);
  });

  it('reads a document far deeper than any stack in one pass', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    expect(nestsDeeperThan(deep, 32)).toBe(true);
    expect(nestsDeeperThan(deep, 1_000_000)).toBe(false);
  });
});
