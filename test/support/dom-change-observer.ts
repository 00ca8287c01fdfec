import { vi } from 'vitest';

/**
 * Replaces the global `MutationObserver` with one that observes nothing: `onCreated` receives the callback of each one
 * created, so a test calls it to say the document changed (the DOM-change window, src/replay/dom-change-window.ts,
 * opens the only observer in unit tests; rrweb is mocked or faked there).
 */
export function stubMutationObserver(onCreated: (callback: () => void) => void): void {
  vi.stubGlobal(
    'MutationObserver',
    class {
      constructor(callback: () => void) {
        onCreated(callback);
      }
      observe(): void {}
      disconnect(): void {}
      takeRecords(): [] {
        return [];
      }
    },
  );
}
