import type { LeftoverStorage } from '../../src/pipeline/leftovers';

/**
 * What the replay's units send through: a recording pipeline whose answers each test controls, and a local storage
 * in memory.
 */

export interface Post {
  path: string;
  body: string;
  unloading: boolean;
  settled: boolean;
  /** Settles the post as delivered or not. Posts settle as delivered at once unless held. */
  settle(delivered: boolean): void;
}

export function fakePipeline() {
  const posts: Post[] = [];
  const waiting: Array<() => void> = [];
  let hold = false;
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    posts,
    /** From now on posts wait for `settle`. */
    holdPosts: () => void (hold = true),
    /** Delivers every held post and stops holding. */
    release() {
      hold = false;
      for (const post of posts) if (!post.settled) post.settle(true);
    },
    /** Resolves once `count` posts have been made. */
    async postsMade(count: number): Promise<Post[]> {
      while (posts.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
      return posts;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    postJson(path: string, body: string, unloading = false): Promise<boolean> {
      return new Promise<boolean>((resolve) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const post: Post = {
          path,
          body,
          unloading,
          settled: false,
          settle(delivered) {
            if (post.settled) return;
            post.settled = true;
            inFlight--;
            resolve(delivered);
          },
        };
        posts.push(post);
        for (const wake of waiting.splice(0)) wake();
        if (!hold) post.settle(true);
      });
    },
  };
}

/** A Map behind the Storage methods the leftover store uses. */
export function memoryStorage(): LeftoverStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
    key: (index) => [...map.keys()][index] ?? null,
    get length() {
      return map.size;
    },
  };
}
