import { afterEach, describe, expect, it, vi } from 'vitest';
import { scheduleDetection } from '../../server/src/incidents/detect/schedule';

describe('the detection schedule', () => {
  afterEach(() => vi.useRealTimers());

  it('skips the ticks that come while a run is still going, rather than queueing them', async () => {
    vi.useFakeTimers();
    let started = 0;
    let finish = () => undefined as void;
    const run = {
      name: 'slow job',
      runOnce: () => {
        started++;
        return new Promise<void>((done) => (finish = done));
      },
    };
    const stop = scheduleDetection([run], () => undefined, 250);
    await vi.advanceTimersByTimeAsync(250);
    expect(started).toBe(1);
    // Ten ticks pass while the first run is stuck: none of them starts another or waits to.
    await vi.advanceTimersByTimeAsync(2_500);
    expect(started).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toBe(1);
    // The next tick runs again, once.
    await vi.advanceTimersByTimeAsync(250);
    expect(started).toBe(2);
    finish();
    await stop();
  });
});
