/**
 * The environment for commands a test runs (npm, a framework's build or dev server). npm settings inherited from an
 * enclosing `npm run`/`npm test` would redirect them (a workspace filter packs the wrong package, a prefix installs
 * elsewhere), a test runner's NODE_ENV would change what the frameworks build, and SDK variables from the developer's
 * shell would override the ones a test sets or leaves unset on purpose: all are dropped. Registry and cache settings
 * stay.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_ENV' || /^(VITE_|NEXT_PUBLIC_|REACT_APP_)?SVC_/.test(key)) continue;
    if (
      /^npm_(config_(workspaces?|include_workspace_root|prefix|local_prefix|global|dry_run|json)$|lifecycle_|package_)/i.test(
        key,
      )
    )
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}
