/** What a group's run reports for each of its items, in order. */
export type Outcome<R> = { ok: true; result: R } | { ok: false; error: unknown };

/**
 * Group commit: items submitted while the event loop is busy are queued and handed to `run` together on the next turn
 * (setImmediate), so one transaction, and one COMMIT, serves them all. Each item's promise settles with its own
 * outcome; if `run` throws, every item of that group is rejected with the error.
 */
export function groupCommit<T, R>(run: (group: T[]) => Outcome<R>[] | Promise<Outcome<R>[]>) {
  interface Queued {
    item: T;
    resolve(result: R): void;
    reject(err: unknown): void;
  }
  let queue: Queued[] = [];
  let flushing: Promise<void> | undefined;

  const flush = async () => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        const outcomes = await run(group.map((q) => q.item));
        outcomes.forEach((o, i) => (o.ok ? group[i]!.resolve(o.result) : group[i]!.reject(o.error)));
      } catch (err) {
        for (const q of group) q.reject(err);
      }
    }
    flushing = undefined;
  };

  return {
    submit(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        flushing ??= new Promise<void>((next) => setImmediate(next)).then(flush);
      });
    },
    /** Resolves once everything submitted so far has settled. */
    drain: async (): Promise<void> => {
      while (flushing) await flushing;
    },
  };
}
