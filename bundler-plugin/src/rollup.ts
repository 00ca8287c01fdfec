import { svcBuild } from './plugin';

export type { SvcBuildOptions } from './plugin';

/** The svc plugin for Rollup: debug IDs in every emitted file and its map, then the maps' upload (see docs/build-plugin.md). */
export const svcRollupPlugin = svcBuild.rollup;
export default svcRollupPlugin;
