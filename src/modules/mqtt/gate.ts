/**
 * At most `limit` pieces of work at once; the rest wait their turn, in the order they came. The embedded
 * broker handles devices' messages through one, so that 10,000 devices reporting at the same moment are
 * not 10,000 reports in flight at once, each with its parsed body, its transaction's objects, its answer's
 * packets and their callbacks: measured at 10,000 devices, about 4.8 KB of heap each, 45 MB in all that V8
 * grew its heap for and kept resident after (BENCHMARKS.md, "the embedded broker's memory"). A message
 * waiting here holds only what aedes parsed and a callback.
 */
export class Gate {
  private active = 0;
  /** Waiting turns; `head` is the next, so that taking one is not a copy of the rest. */
  private waiting: (() => void)[] = [];
  private head = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Work running now, and work waiting for its turn (for tests). */
  get counts(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length - this.head };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Hands the finished work's place to the next waiting one, if any. */
  private release(): void {
    if (this.head === this.waiting.length) {
      this.active--;
      return;
    }
    const next = this.waiting[this.head++] as () => void;
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    next();
  }
}
