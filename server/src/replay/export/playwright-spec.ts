import type { RecipeStep } from '../../../../wire/replay';
import { ActionExtractor } from './actions';
import { emitSpec } from './emit';
import { recipeRouting } from './recipe-routing';

export interface SpecIdentity {
  sessionId: string;
  app: string;
  /** Base URL to run against by default instead of the recorded origin (an origin, `http://localhost:3000`). */
  baseUrl?: string;
}

/**
 * Exports a recorded session as a Playwright spec (docs/replay-export.md). Chunks are fed one at a time in playback
 * order, so a long session is never held decoded in memory at once; the recipes come last, since which requests are
 * same-origin depends on the first recorded page.
 */
export class PlaywrightExport {
  private readonly actions = new ActionExtractor();
  private replayId: string | undefined;

  /** Feeds the events of the next chunk. A chunk of another replay than the last one starts a new page load. */
  addChunk(replayId: string, events: readonly unknown[]): void {
    if (replayId !== this.replayId) {
      this.replayId = replayId;
      this.actions.startReplay();
    }
    for (const event of events) this.actions.push(event);
  }

  /** The spec's TypeScript source; undefined when the chunks held no page load (rrweb Meta event) to start from. */
  finish(identity: SpecIdentity, recipes: readonly RecipeStep[]): string | undefined {
    const origin = this.actions.recordedOrigin;
    if (origin === undefined) return undefined;
    return emitSpec({
      sessionId: identity.sessionId,
      app: identity.app,
      origin,
      baseUrl: identity.baseUrl ?? origin,
      recordedAt: this.actions.startedAt,
      steps: this.actions.finish(),
      routing: recipeRouting(recipes, origin),
    });
  }
}
