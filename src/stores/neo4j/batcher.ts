// Groups reads asked while others are in flight into one query: at high concurrency a round trip and a transaction serve many.

interface Waiting<Q, A> {
  q: Q;
  resolve(a: A): void;
  reject(e: unknown): void;
}

/**
 * Up to `parallel` queries run at once. A read asked while that many are in flight waits for the next free slot,
 * together with every read asked meanwhile (at most `max` per query), so an idle system answers each read alone
 * and at once, and a busy one pays one query per group instead of one per read.
 */
export class Batcher<Q, A> {
  private readonly queue: Array<Waiting<Q, A>> = [];
  private inFlight = 0;

  constructor(private readonly one: (q: [Q]) => Promise<A[]>, private readonly many: (qs: Q[]) => Promise<A[]>, private readonly parallel = 2, private readonly max = 64) {}

  ask(q: Q): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      this.queue.push({ q, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.parallel && this.queue.length) {
      const group = this.queue.splice(0, this.max);
      this.inFlight++;
      let run: Promise<A[]>;
      try {
        run = group.length === 1 ? this.one([group[0]!.q]) : this.many(group.map((w) => w.q));
      } catch (e) {
        run = Promise.reject(e);
      }
      run.then((answers) => group.forEach((w, i) => w.resolve(answers[i]!)))
        .catch((e: unknown) => {
          group.forEach((w) => w.reject(e));
          // The store is failing: what waits would fail the same way, one slow timeout after another.
          this.queue.splice(0).forEach((w) => w.reject(e));
        })
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }
}
