import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { processOutput, summarize, type ProcessResult } from '../../../bundler-plugin/src/core/process';
import { resolveRelease } from '../../../bundler-plugin/src/core/release';
import { findJsFiles, toUploadPath } from '../../../bundler-plugin/src/core/scan';
import { UsageError } from './resolve';

export const SOURCEMAPS_USAGE = `Source maps (for builds without the @svc/build plugin: Create React App, plain scripts, CI jobs):
  svc-server sourcemaps inject DIR     debug IDs into every .js/.mjs/.cjs file under DIR and its source map
  svc-server sourcemaps upload DIR [--release NAME] [--url-prefix ~/assets] [--url URL] [--control-key KEY]
                                       [--delete-after-upload]
      injects as above (files that have an id keep it), then uploads the maps and their files to the server at --url
      (or SVC_URL) with a control key (--control-key or SVC_CONTROL_KEY), under the release --release (default
      SVC_RELEASE, else the commit SHA of the git checkout DIR is in); --url-prefix (default ~/) is the URL of DIR,
      ~/ matching any origin; --delete-after-upload then deletes the maps and their sourceMappingURL comments.
Run them on the build output before it is deployed: injecting changes the files.`;

type Out = (line: string) => void;

async function jsFilesIn(dir: string): Promise<string[]> {
  if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  const files = await findJsFiles(dir);
  if (files.length === 0)
    throw new Error(`no .js, .mjs or .cjs files under ${dir}: is it the build's output directory?`);
  return files;
}

function report(dir: string, result: ProcessResult, uploaded: boolean, out: Out): void {
  for (const f of result.files) {
    const notes = [f.injected ? '' : 'had its id', f.map ? '' : 'no map'].filter(Boolean).join(', ');
    out(`${f.debugId}  ${toUploadPath(dir, f.file)}${notes ? `  (${notes})` : ''}`);
  }
  out(summarize(result, uploaded));
}

/** Runs `sourcemaps inject DIR` or `sourcemaps upload DIR …`. Returns the process exit code. */
export async function runSourcemapsCommand(argv: readonly string[], env: NodeJS.ProcessEnv, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      release: { type: 'string' },
      'url-prefix': { type: 'string' },
      url: { type: 'string' },
      'control-key': { type: 'string' },
      'delete-after-upload': { type: 'boolean' },
    },
  });
  const [action, target, ...extra] = positionals;
  if ((action !== 'inject' && action !== 'upload') || target === undefined || extra.length > 0) {
    throw new UsageError(`usage: sourcemaps inject DIR | sourcemaps upload DIR [options]\n${SOURCEMAPS_USAGE}`);
  }
  const uploadFlags = (['release', 'url-prefix', 'url', 'control-key', 'delete-after-upload'] as const).filter(
    (f) => values[f] !== undefined,
  );
  if (action === 'inject' && uploadFlags.length > 0)
    throw new UsageError(`--${uploadFlags[0]} is an option of sourcemaps upload, not inject`);
  const dir = resolve(target);
  const files = await jsFilesIn(dir);
  if (action === 'inject') {
    report(dir, await processOutput(dir, files, { upload: null }), false, out);
    return 0;
  }
  const url = values.url ?? env.SVC_URL;
  const controlKey = values['control-key'] ?? env.SVC_CONTROL_KEY;
  if (!url) throw new UsageError('sourcemaps upload needs the server: --url URL (or SVC_URL)');
  if (!controlKey)
    throw new UsageError('sourcemaps upload needs a control key: --control-key KEY (or SVC_CONTROL_KEY)');
  // The build's output lies in the checkout it was built from, wherever the command is run.
  const upload = {
    url,
    controlKey,
    release: resolveRelease(values.release, env, dir),
    urlPrefix: values['url-prefix'],
  };
  report(
    dir,
    await processOutput(dir, files, { upload, deleteMapsAfterUpload: values['delete-after-upload'] }),
    true,
    out,
  );
  return 0;
}
