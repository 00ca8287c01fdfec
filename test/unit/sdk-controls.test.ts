import { describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config/resolve';
import type { BrowserSDKConfig } from '../../src/config/types';
import type { LogItem, TelemetryItem } from '../../src/pipeline/items';
import { createItemFilter } from '../../src/sdk/filters';
import { createIdentity } from '../../src/sdk/identity';
import { randomHexId } from '../../src/session/ids';
import { sessionSampling } from '../../src/session/sampling';

const config = (options: Partial<BrowserSDKConfig>) => resolveConfig({ apiKey: 'k', serviceName: 's', ...options });
const debug = { warn: vi.fn(), error: vi.fn() };

describe('session sampling', () => {
  it('keeps each rate on its share of random sessions, the replay rates applying to sampled sessions only', () => {
    const resolved = config({ sampleRate: 0.5, replay: { sampleRate: 0.2, onErrorSampleRate: 0.5 } });
    const counts = { sampled: 0, full: 0, on_error: 0, off: 0 };
    const sessions = 20_000;
    for (let i = 0; i < sessions; i++) {
      const decision = sessionSampling(randomHexId(), resolved);
      if (decision.sampled) counts.sampled++;
      counts[decision.replay]++;
    }
    expect(counts.sampled / sessions).toBeCloseTo(0.5, 1);
    expect(counts.full / sessions).toBeCloseTo(0.5 * 0.2, 1);
    // Half of the sampled sessions not recorded in full.
    expect(counts.on_error / sessions).toBeCloseTo(0.5 * 0.8 * 0.5, 1);
  });

  it('decides the same for the same session id, and nothing with replay disabled', () => {
    const id = randomHexId();
    const resolved = config({ sampleRate: 0.5 });
    expect(sessionSampling(id, resolved)).toEqual(sessionSampling(id, resolved));
    expect(sessionSampling('0'.repeat(32), config({ replay: { enabled: false } }))).toEqual({
      sampled: true,
      replay: 'off',
    });
    expect(sessionSampling('f'.repeat(32), config({ sampleRate: 1 }))).toEqual({ sampled: true, replay: 'full' });
  });
});

const error = (stack: string, extra: Record<string, string> = {}): LogItem => ({
  kind: 'log',
  timeMs: 1,
  level: 'error',
  body: 'TypeError: boom',
  sessionId: 's',
  attributes: { 'exception.type': 'TypeError', 'exception.message': 'boom', 'exception.stacktrace': stack, ...extra },
});

describe('item filter', () => {
  it('reads the script that threw from V8, Firefox and Safari stacks, or from the error event', () => {
    const filter = createItemFilter(config({ denyUrls: ['https://ads.example/'] }), debug);
    expect(
      filter(
        error('TypeError: boom\n    at show (https://ads.example/a.js:1:2)\n    at https://shop.example/m.js:3:4'),
      ),
    ).toBeUndefined();
    expect(filter(error('show@https://ads.example/a.js:1:2\n@https://shop.example/m.js:3:4'))).toBeUndefined();
    expect(filter(error('no frames', { 'code.file.path': 'https://ads.example/b.js' }))).toBeUndefined();
    expect(
      filter(error('TypeError: boom\n    at https://shop.example/m.js:3:4\n    at https://ads.example/a.js:1:2')),
    ).toBeDefined();
  });

  it('keeps an error whose stack names no script, even with allowUrls', () => {
    const filter = createItemFilter(config({ allowUrls: ['https://shop.example/'] }), debug);
    expect(filter(error('TypeError: boom'))).toBeDefined();
  });

  it('leaves metrics alone, and sends an item unchanged when beforeSend throws or returns something else', () => {
    const beforeSend = vi.fn((): never => {
      throw new Error('hook bug');
    });
    const metric: TelemetryItem = {
      kind: 'metric',
      timeMs: 1,
      name: 'm',
      value: 1,
      unit: '',
      sessionId: 's',
      attributes: {},
    };
    const throwing = createItemFilter(config({ beforeSend }), debug);
    expect(throwing(metric)).toBe(metric);
    expect(beforeSend).not.toHaveBeenCalled();
    const item = error('x');
    expect(throwing(item)).toBe(item);
    const wrong = createItemFilter(config({ beforeSend: () => ({ kind: 'span' }) as never }), debug);
    expect(wrong(item)).toBe(item);
  });
});

describe('identity', () => {
  it('sends only the user id unless sendUserPii, and prefixes session attributes; null removes one', () => {
    const identity = createIdentity(false, debug);
    identity.setUser({ id: 'u1', email: 'a@b.c', username: 'ann' });
    identity.setAttributes({ plan: 'pro', beta: true });
    identity.setAttributes({ beta: null });
    expect(identity.attributes).toEqual({ 'user.id': 'u1', 'session.attributes.plan': 'pro' });
    identity.clearUser();
    expect(identity.attributes).toEqual({ 'session.attributes.plan': 'pro' });
    const pii = createIdentity(true, debug);
    pii.setUser({ id: 'u2', email: 'a@b.c', username: 'ann' });
    expect(pii.attributes).toEqual({ 'user.id': 'u2', 'user.email': 'a@b.c', 'user.name': 'ann' });
  });

  it('ignores a user without an id, with a warning', () => {
    const identity = createIdentity(true, debug);
    identity.setUser({ email: 'a@b.c' } as never);
    expect(identity.attributes).toEqual({});
    expect(debug.warn).toHaveBeenCalledWith(
      expect.stringContaining('setUser needs an object with a non-empty string id'),
    );
  });
});
