/** The operator's log lines: one JSON object each, envelope first, fields flat, nothing that breaks a line. */
import { describe, expect, it } from 'vitest';
import { createLogger, parseLogLevel } from '../../../operator/src/log.js';

describe('operator logger', () => {
  it('writes one JSON object per line with time, level, msg and the fields', () => {
    const lines: string[] = [];
    const log = createLogger({ sink: (line) => lines.push(line), clock: () => new Date('2025-06-01T12:00:00.123Z') });
    log.info('discovered 3 workloads in namespace shop', { namespace: 'shop', workloads: 3 });
    log
      .child({ component: 'controller' })
      .warn('watch failed', { error: new TypeError('boom'), size: 10n, skipped: undefined });
    expect(lines).toEqual([
      '{"time":"2025-06-01T12:00:00.123Z","level":"info","msg":"discovered 3 workloads in namespace shop","namespace":"shop","workloads":3}',
      '{"time":"2025-06-01T12:00:00.123Z","level":"warn","msg":"watch failed","component":"controller","error":"TypeError: boom","size":"10"}',
    ]);
    for (const line of lines) expect(line).not.toContain('\n');
  });

  it('drops lines below the level, keeps the envelope from being overwritten, and survives unserializable fields', () => {
    const lines: string[] = [];
    const log = createLogger({ sink: (line) => lines.push(line), level: 'warn', clock: () => new Date(0) });
    log.info('not shown');
    log.debug('not shown');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    log.error('bad fields', { msg: 'shadow', level: 'x', circular });
    log.log('warn', 'through log()', { msg: 'shadow' });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        time: '1970-01-01T00:00:00.000Z',
        level: 'error',
        msg: 'bad fields',
        fieldsError: 'fields could not be serialized',
      },
      { time: '1970-01-01T00:00:00.000Z', level: 'warn', msg: 'through log()', 'field.msg': 'shadow' },
    ]);
    expect(parseLogLevel('debug')).toBe('debug');
    expect(parseLogLevel('verbose')).toBeUndefined();
  });
});
