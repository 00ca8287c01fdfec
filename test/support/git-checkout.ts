import { execFileSync } from 'node:child_process';
import { childEnv } from './child-env';

/** Makes `dir` a git checkout with everything in it committed, as a build's working directory is; returns the commit SHA. */
export function commitAll(dir: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: childEnv() }).trim();
  git('init', '--quiet');
  git('add', '.');
  git(
    '-c',
    'user.name=svc test',
    '-c',
    'user.email=test@svc.invalid',
    '-c',
    'commit.gpgsign=false',
    'commit',
    '--quiet',
    '-m',
    'the build',
  );
  return git('rev-parse', 'HEAD');
}
