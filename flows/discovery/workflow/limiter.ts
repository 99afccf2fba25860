/**
 * At most `limit` activities' worth of work (model calls, searches) at once across all of a
 * run's steps. A request asks for up to `want` slots and gets as many as are free (at least
 * one), in the order requests came: a step validating its candidates together takes the free
 * slots and validates that many candidates in one activity; a search takes one.
 *
 * Deterministic, as workflow code must be: it runs single-threaded and promises resolve in
 * order. `run` with one slot keeps the one-slot limiter of earlier releases step for step (the
 * same awaits, a freed slot handed straight to the next waiter), so their histories schedule
 * the same activities in the same order on replay.
 */
export class Limiter {
  private free: number;
  private readonly waiting: Array<{ want: number; grant: (slots: number) => void }> = [];

  constructor(private readonly limit: number) {
    this.free = limit;
  }

  /** Runs `work` with the slots it was given, and gives them back when it ends. */
  async run<T>(want: number, work: (slots: number) => Promise<T>): Promise<T> {
    const slots = this.waiting.length === 0 && this.free > 0 ? this.take(want) : await this.queue(want);
    try {
      return await work(slots);
    } finally {
      this.giveBack(slots);
    }
  }

  /** Waits for slots; `release()` gives them back (once). */
  async acquire(want: number): Promise<Lease> {
    const slots = this.waiting.length === 0 && this.free > 0 ? this.take(want) : await this.queue(want);
    let released = false;
    return {
      slots,
      release: () => {
        if (!released) this.giveBack(slots);
        released = true;
      },
    };
  }

  /** Slots now in use (for tests). */
  get inUse(): number {
    return this.limit - this.free;
  }

  private queue(want: number): Promise<number> {
    return new Promise<number>((grant) => this.waiting.push({ want, grant }));
  }

  private take(want: number): number {
    const slots = Math.max(1, Math.min(want, this.free));
    this.free -= slots;
    return slots;
  }

  private giveBack(slots: number): void {
    this.free += slots;
    while (this.free > 0 && this.waiting.length) {
      const next = this.waiting.shift()!;
      next.grant(this.take(next.want));
    }
  }
}

export interface Lease {
  slots: number;
  release(): void;
}
