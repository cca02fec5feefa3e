import type { Clock } from '../../server/oracle/runs/clock.js';

interface Timer {
  ms: number;
  next: number;
  fn: () => void;
}

/**
 * A clock whose time moves only when told: `sleep` moves it at once by the pause asked (and records the pause),
 * and `tick(ms)` moves it and fires the timers that fall due meanwhile, in time order. A test that uses it never
 * waits for real time, so its assertions hold on a machine of any speed.
 */
export class VirtualClock implements Clock {
  time = 0;
  /** Every pause asked of `sleep`, in order. */
  readonly slept: number[] = [];
  readonly #timers = new Set<Timer>();

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.time += ms;
    return Promise.resolve();
  }

  every(ms: number, fn: () => void): () => void {
    const timer = { ms, next: this.time + ms, fn };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** The periods of the timers running now, shortest first. */
  periods(): number[] {
    return [...this.#timers].map((t) => t.ms).sort((a, b) => a - b);
  }

  /** Moves time on by `ms`, firing each timer as often as its period fits, in time order. */
  tick(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let due: Timer | undefined;
      for (const timer of this.#timers) if (timer.next <= end && (!due || timer.next < due.next)) due = timer;
      if (!due) break;
      this.time = due.next;
      due.next += due.ms;
      due.fn();
    }
    this.time = end;
  }
}
