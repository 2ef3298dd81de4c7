import { createLogThrottle } from './log-throttle';

describe('log throttle', () => {
  it('lets one line per key through each interval and counts the ones it held back', () => {
    let now = 0;
    const throttle = createLogThrottle(60_000, () => now);
    expect(throttle.take('storage')).toEqual({ log: true, suppressed: 0 });
    for (let i = 0; i < 500; i++) expect(throttle.take('storage')).toEqual({ log: false });
    // Another dependency has its own allowance.
    expect(throttle.take('redis')).toEqual({ log: true, suppressed: 0 });
    now = 59_999;
    expect(throttle.take('storage')).toEqual({ log: false });
    now = 60_000;
    expect(throttle.take('storage')).toEqual({ log: true, suppressed: 501 });
    expect(throttle.take('storage')).toEqual({ log: false });
    now = 200_000;
    expect(throttle.take('storage')).toEqual({ log: true, suppressed: 1 });
  });
});
