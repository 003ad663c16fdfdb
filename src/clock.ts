/**
 * The one clock of the service. Everything that reads "now" goes through it so
 * tests can move time (receipt expiry, cursor lifetime, rate-limit windows)
 * without waiting. Production uses the system clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/**
 * A clock offset from system time; shared across processes through the
 * CLOCK_OFFSET_MS variable, so that a test can run server processes "in the
 * future" (e.g. 31 days later) and still have time pass normally.
 */
export class OffsetClock implements Clock {
  offsetMs: number;
  constructor(offsetMs = 0) {
    this.offsetMs = offsetMs;
  }
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
