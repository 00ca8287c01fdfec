/**
 * What every workload page of `bench:overhead` shares: building elements, and tracking the work started by input so
 * that the driver can wait until the page is idle (`window.bench.idle()`) without fixed sleeps.
 */

/** The elements the driver clicks, by name; their centres are read when the driver clicks them. */
export type Controls = Record<string, HTMLElement>;

/** What a workload gets from the page. */
export interface Kit {
  /** The app's route prefix, `/r/<run>/<variant>/`: routes stay under it so that relative asset URLs stay valid. */
  base: string;
  /** Runs `work` as pending: `idle()` waits for it. A rejection is logged with `console.warn`, as an app would. */
  track(work: () => Promise<void>): Promise<void>;
  /** Tells the driver's waiters that synchronous work is done (for handlers that start nothing asynchronous). */
  settle(): void;
}

/** A workload's page side: renders into `document.body`, wires its handlers and returns its controls. */
export type StartWorkload = (kit: Kit) => Controls;

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

/** A deterministic pseudo-random number in [0, 1) for `n`, so that every variant renders the same content. */
export function noise(n: number): number {
  const x = Math.sin(n * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

/** Resolves after `ms` (a timer, as the app's own code would wait). */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves on the next animation frame. */
export const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** The pending-work tracker behind `Kit.track`, `Kit.settle` and `window.bench.idle()`. */
export function createTracker(): Pick<Kit, 'track' | 'settle'> & { idle(): Promise<void> } {
  let pending = 0;
  let waiters: Array<() => void> = [];
  const settle = (): void => {
    if (pending > 0) return;
    const done = waiters;
    waiters = [];
    // One frame and one task later, so that work queued by the handlers (renders, observers) has run too.
    requestAnimationFrame(() => setTimeout(() => done.forEach((resolve) => resolve()), 0));
  };
  return {
    settle,
    async track(work) {
      pending += 1;
      try {
        await work();
      } catch (error) {
        console.warn('request failed', error);
      } finally {
        pending -= 1;
        settle();
      }
    },
    idle() {
      // After one frame, so that work input starts asynchronously (scroll events, observers) is pending by then.
      return frame().then(
        () =>
          new Promise<void>((resolve) => {
            waiters.push(resolve);
            settle();
          }),
      );
    },
  };
}
