import { withSvc } from '@svc/build/next';
import type { NextConfig } from 'next';

const nextConfig: NextConfig = {};

// withSvc (on `next build` only, with Turbopack or `--webpack`): browser source maps on, the release (the commit) for
// the SDK, a debug ID in each browser chunk and its map, then the maps' upload to SVC_URL with the control key in
// SVC_CONTROL_KEY, and their removal from .next/ once uploaded.
export default withSvc(nextConfig);
