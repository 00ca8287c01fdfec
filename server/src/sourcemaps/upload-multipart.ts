import { posix } from 'node:path';
import { invalid } from '../shared/domain-errors';
import { MAX_RELEASE } from './upload-json';
import { mapTooLarge, MAX_MAP_BYTES, optionalText, type UploadEntry } from './upload-entry';

const MAX_URL_PREFIX = 1024;
const CODE = /\.(?:js|mjs|cjs)$/;
const decoder = new TextDecoder('utf-8', { fatal: true });

interface Part {
  path: string;
  field: string;
  text: string;
}

/**
 * The entries of a multipart upload (docs/source-maps.md): text parts `release` and `url_prefix`, and `file` parts
 * named by their path in the build output. Each `.map` part is a map; a `.js`/`.mjs`/`.cjs` part is the minified file
 * of the map its `//# sourceMappingURL=` names, or else of `<file>.map`, and gives the map its URL.
 */
export async function entriesFromForm(form: FormData): Promise<UploadEntry[]> {
  let release: string | null = null;
  let prefix = '~/';
  const maps = new Map<string, Part>();
  const code: Part[] = [];
  for (const [name, value] of form.entries()) {
    if (name === 'release' && typeof value === 'string') release = optionalText(value, 'release', MAX_RELEASE);
    else if (name === 'url_prefix' && typeof value === 'string')
      prefix = optionalText(value, 'url_prefix', MAX_URL_PREFIX) ?? prefix;
    else if (name === 'file' && typeof value !== 'string') {
      const part = await readPart(value);
      if (part.path.endsWith('.map')) maps.set(part.path, part);
      else if (CODE.test(part.path)) code.push(part);
      else
        throw invalid(
          `${part.field}: only .map files and their .js, .mjs or .cjs files are uploaded`,
          'invalid_request',
          {
            field: part.field,
          },
        );
    } else if (name === 'file')
      throw invalid('each file part needs a filename: its path in the build output', 'invalid_request', {
        field: 'file',
      });
    else
      throw invalid(
        `unexpected form part "${name}": the form takes text parts release and url_prefix and file parts named file`,
        'invalid_request',
        { field: name },
      );
  }
  if (maps.size === 0)
    throw invalid('the form holds no .map file part (named file)', 'invalid_request', { field: 'file' });
  const codeOf = pairCode(maps, code);
  return [...maps.values()].map((map) => {
    const js = codeOf.get(map.path);
    return {
      field: map.field,
      text: map.text,
      declaredId: null,
      code: js ? { field: js.field, text: js.text } : null,
      release,
      url: joinUrl(prefix, js?.path ?? map.path.slice(0, -'.map'.length)),
    };
  });
}

async function readPart(file: File): Promise<Part> {
  const path = posix.normalize(file.name.replaceAll('\\', '/')).replace(/^(?:\.\/|\/)+/, '');
  const field = `file[${file.name}]`;
  if (!file.name || path === '.' || path.startsWith('../') || path.includes('\u0000')) {
    throw invalid(`${field}: each file part needs a filename: its path in the build output`, 'invalid_request', {
      field,
    });
  }
  if (file.size > MAX_MAP_BYTES) throw mapTooLarge(field);
  try {
    return { path, field, text: decoder.decode(await file.arrayBuffer()) };
  } catch {
    throw invalid(`${field}: not valid UTF-8 text`, 'invalid_sourcemap', { field });
  }
}

/** Map path → its minified file, by the file's `sourceMappingURL` (relative to the file), else `<file>.map`. */
function pairCode(maps: ReadonlyMap<string, Part>, code: readonly Part[]): Map<string, Part> {
  const paired = new Map<string, Part>();
  for (const js of code) {
    const named = /^\s*\/\/[#@] sourceMappingURL=(\S+)\s*$/m.exec(js.text.slice(-4096))?.[1];
    const candidates = [
      named && !/^[a-z]+:/i.test(named) ? posix.join(posix.dirname(js.path), named.split(/[?#]/)[0]!) : undefined,
      `${js.path}.map`,
    ];
    const mapPath = candidates.find((p) => p !== undefined && maps.has(p));
    if (mapPath) paired.set(mapPath, js);
  }
  return paired;
}

const joinUrl = (prefix: string, path: string) => `${prefix.replace(/\/+$/, '')}/${path}`;
