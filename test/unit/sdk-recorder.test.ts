import { record } from '@rrweb/record';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config/resolve';
import { loadRecorder } from '../../src/replay/load-recorder';

// rrweb needs a real DOM; what is tested here is the SDK's side of the contract: which options reach rrweb and how
// its stop handler is wrapped. Recording itself is covered by the browser end-to-end suite.
vi.mock('@rrweb/record', () => ({ record: vi.fn() }));

const config = resolveConfig({
  apiKey: 'k',
  serviceName: 'shop-web',
  replay: { blockClass: 'no-record', maskAllInputs: false, sampling: { mousemove: 40, input: 'all' } },
});

describe('loadRecorder', () => {
  beforeEach(() => {
    vi.mocked(record).mockReset();
  });

  it('passes the resolved replay options to rrweb, sampling included', async () => {
    vi.mocked(record).mockReturnValue(() => {});
    const emit = vi.fn();
    const start = await loadRecorder();
    start(config.replay, emit);
    expect(record).toHaveBeenCalledWith({
      emit,
      blockClass: 'no-record',
      maskTextClass: 'ob-mask',
      maskAllInputs: false,
      sampling: { mousemove: 40, scroll: 150, input: 'all' },
    });
  });

  it('returns a stop function that stops rrweb once and never throws', async () => {
    const stopRrweb = vi.fn(() => {
      throw new Error('document is gone');
    });
    vi.mocked(record).mockReturnValue(stopRrweb);
    const stop = (await loadRecorder())(config.replay, () => {});
    expect(stop).toBeTypeOf('function');
    expect(() => stop?.()).not.toThrow();
    stop?.();
    expect(stopRrweb).toHaveBeenCalledTimes(1);
  });

  it('returns undefined when rrweb could not start', async () => {
    vi.mocked(record).mockReturnValue(undefined);
    expect((await loadRecorder())(config.replay, () => {})).toBeUndefined();
  });

  it('shares one load between callers', async () => {
    const [first, second] = await Promise.all([loadRecorder(), loadRecorder()]);
    expect(first).toBe(second);
  });
});
