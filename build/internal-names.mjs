import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MagicString from 'magic-string';

/**
 * Short names for the SDK's internal property names: a property whose name ends in `_` (`failures_`, `waiting_`) is
 * renamed in every build to one or two letters. Why: the npm build is not minified and an application's bundler keeps
 * property names, so every property of the SDK's own state objects and classes would otherwise be shipped as written.
 * Nothing else is minified, so the ESM and CJS files stay readable.
 *
 * The rule is a naming convention, not type information, so it only touches what is declared for it:
 * - only property positions are renamed (`a.x_`, `{ x_: 1 }`, `{ x_ }`, class members); variables, string keys
 *   (`a['x_']`) and everything else are left as they are;
 * - only our own modules (src/, wire/) go through it, before bundling, so every build and every output file agrees on
 *   the names and no dependency is touched;
 * - the names come from one table built from the sources (see nameTable), so a build is reproducible and every
 *   output file agrees.
 * Public API, option and OTLP/JSON wire names never end in `_`; test/integration/sdk-pack.test.ts checks that no
 * declaration file mentions one.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_FOLDERS = ['src', 'wire'];
const INTERNAL_NAME = /^[A-Za-z]\w*[A-Za-z0-9]_$/;
const WORD = /[A-Za-z_$][\w$]*/g;
/** A word in a property position: after a `.` (`a.x`, `?.x`), or a key or member before a `:` (`{ x: 1 }`, `x?: T`). */
const PROPERTY = /\.\s*([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\??\s*:/g;

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `a`, `b`, … `Z`, then `aa`, `ab`, …: the shortest names first. */
function* shortNames() {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const first of letters) yield first;
  for (const first of letters) for (const second of letters) yield first + second;
}

/**
 * Every internal name in the sources, with its short name: the most used names get the shortest. A short name is never
 * a word the sources use as a property (after a `.`, or before a `:`), so it cannot meet a public one.
 */
function nameTable() {
  const uses = new Map();
  const properties = new Set();
  for (const folder of SOURCE_FOLDERS)
    for (const file of sourceFiles(join(ROOT, folder))) {
      const text = readFileSync(file, 'utf8');
      for (const [word] of text.matchAll(WORD)) if (INTERNAL_NAME.test(word)) uses.set(word, (uses.get(word) ?? 0) + 1);
      for (const match of text.matchAll(PROPERTY)) properties.add(match[1] ?? match[2]);
    }
  const internal = [...uses.keys()].sort((a, b) => uses.get(b) - uses.get(a) || (a < b ? -1 : 1));
  const table = new Map();
  const names = shortNames();
  for (const name of internal) {
    let short = names.next().value;
    while (properties.has(short)) short = names.next().value;
    table.set(name, short);
  }
  return table;
}

/** The identifiers of an ESTree AST that name a property (not computed, not a string). */
function* propertyNames(node) {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) yield* propertyNames(child);
    return;
  }
  const named = node.computed === false;
  if (named && node.type === 'MemberExpression' && node.property.type === 'Identifier')
    yield { identifier: node.property, shorthand: false };
  if (
    named &&
    ['Property', 'MethodDefinition', 'PropertyDefinition'].includes(node.type) &&
    node.key.type === 'Identifier'
  )
    yield { identifier: node.key, shorthand: node.shorthand === true };
  for (const key of Object.keys(node)) if (key !== 'type') yield* propertyNames(node[key]);
}

/** The rollup plugin; goes after TypeScript, which it reads the JavaScript output of. */
export function internalNames() {
  const table = nameTable();
  const ours = new RegExp(`^${ROOT.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(${SOURCE_FOLDERS.join('|')})[\\\\/]`);
  return {
    name: 'internal-names',
    transform(code, id) {
      if (!ours.test(id) || !/[A-Za-z0-9]_\b/.test(code)) return null;
      const edited = new MagicString(code);
      for (const { identifier, shorthand } of propertyNames(this.parse(code))) {
        const short = table.get(identifier.name);
        if (short === undefined) continue;
        edited.overwrite(identifier.start, identifier.end, shorthand ? `${short}: ${identifier.name}` : short);
      }
      return edited.hasChanged() ? { code: edited.toString(), map: edited.generateMap({ hires: true }) } : null;
    },
  };
}
