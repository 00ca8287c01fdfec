import { svcBuild } from './plugin';

export type { SvcBuildOptions } from './plugin';

/** The svc plugin for Vite: debug IDs in every emitted file and its map, then the maps' upload (see docs/build-plugin.md). */
export const svcVitePlugin = svcBuild.vite;
export default svcVitePlugin;
