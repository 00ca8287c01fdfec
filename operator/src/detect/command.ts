import type { V1Container } from '@kubernetes/client-node';
import type { Language } from '../resource/types.js';
import type { Signal } from './signal.js';

/** How sure a recognised launcher (`node`, `java`, `gunicorn`) is; a bare script extension is a little weaker. */
const LAUNCHER_CONFIDENCE = 0.8;
const EXTENSION_CONFIDENCE = 0.7;

interface Launcher {
  lang: Language;
  framework?: string;
}

/** Programs that start a runtime, by file name. Wrappers (sh, tini, dumb-init, env) are simply not listed. */
const LAUNCHERS: Readonly<Record<string, Launcher>> = {
  node: { lang: 'nodejs' },
  nodejs: { lang: 'nodejs' },
  nodemon: { lang: 'nodejs' },
  'ts-node': { lang: 'nodejs' },
  tsx: { lang: 'nodejs' },
  npm: { lang: 'nodejs' },
  npx: { lang: 'nodejs' },
  yarn: { lang: 'nodejs' },
  pnpm: { lang: 'nodejs' },
  pm2: { lang: 'nodejs' },
  'pm2-runtime': { lang: 'nodejs' },
  next: { lang: 'nodejs', framework: 'nextjs' },
  nest: { lang: 'nodejs', framework: 'nestjs' },
  nuxt: { lang: 'nodejs', framework: 'nuxt' },
  java: { lang: 'java' },
  mvn: { lang: 'java' },
  mvnw: { lang: 'java' },
  gradle: { lang: 'java' },
  gradlew: { lang: 'java' },
  'catalina.sh': { lang: 'java', framework: 'tomcat' },
  catalina: { lang: 'java', framework: 'tomcat' },
  python: { lang: 'python' },
  pypy: { lang: 'python' },
  pypy3: { lang: 'python' },
  gunicorn: { lang: 'python' },
  uvicorn: { lang: 'python' },
  hypercorn: { lang: 'python' },
  daphne: { lang: 'python' },
  uwsgi: { lang: 'python' },
  'waitress-serve': { lang: 'python' },
  celery: { lang: 'python', framework: 'celery' },
  flask: { lang: 'python', framework: 'flask' },
  fastapi: { lang: 'python', framework: 'fastapi' },
  'django-admin': { lang: 'python', framework: 'django' },
  'manage.py': { lang: 'python', framework: 'django' },
  streamlit: { lang: 'python', framework: 'streamlit' },
  poetry: { lang: 'python' },
  pipenv: { lang: 'python' },
  go: { lang: 'go' },
  dotnet: { lang: 'dotnet' },
  ruby: { lang: 'ruby' },
  rails: { lang: 'ruby', framework: 'rails' },
  bundle: { lang: 'ruby' },
  rake: { lang: 'ruby' },
  puma: { lang: 'ruby' },
  unicorn: { lang: 'ruby' },
  rackup: { lang: 'ruby' },
  sidekiq: { lang: 'ruby', framework: 'sidekiq' },
  php: { lang: 'php' },
  'php-fpm': { lang: 'php' },
  artisan: { lang: 'php', framework: 'laravel' },
  frankenphp: { lang: 'php' },
  'apache2-foreground': { lang: 'php' },
};

/** Versioned launcher names: python3, python3.12, php8.2, php-fpm8.2. */
const VERSIONED: readonly [RegExp, Language][] = [
  [/^python[23](\.\d+)?$/, 'python'],
  [/^php(-fpm)?\d+(\.\d+)?$/, 'php'],
];

const EXTENSIONS: Readonly<Record<string, Language>> = {
  js: 'nodejs',
  mjs: 'nodejs',
  cjs: 'nodejs',
  py: 'python',
  jar: 'java',
  war: 'java',
  rb: 'ruby',
  php: 'php',
  dll: 'dotnet',
};

/** Words anywhere in the command line that name a framework of the detected language. */
const FRAMEWORK_WORDS: readonly { test: (token: string) => boolean; lang: Language; framework: string }[] = [
  { test: (t) => t.includes('spring-boot'), lang: 'java', framework: 'spring-boot' },
  { test: (t) => t === 'quarkus-run.jar' || t.endsWith('-runner.jar'), lang: 'java', framework: 'quarkus' },
  { test: (t) => t === 'manage.py' || /\.wsgi(:|$)/.test(t), lang: 'python', framework: 'django' },
  { test: (t) => t === 'flask', lang: 'python', framework: 'flask' },
  { test: (t) => t === 'fastapi', lang: 'python', framework: 'fastapi' },
  { test: (t) => t === 'celery', lang: 'python', framework: 'celery' },
  { test: (t) => t === 'next', lang: 'nodejs', framework: 'nextjs' },
  { test: (t) => t === 'nest', lang: 'nodejs', framework: 'nestjs' },
  { test: (t) => t === 'rails', lang: 'ruby', framework: 'rails' },
  { test: (t) => t === 'artisan', lang: 'php', framework: 'laravel' },
];

/**
 * The command line (`command` then `args`, shell scripts split into words) read left to right: the first word that is a
 * known launcher or a script with a known extension names the language; any later word may name the framework
 * (`python manage.py runserver` → django, `java -jar app.jar --spring-boot` …).
 */
export function commandSignal(container: V1Container): Signal | undefined {
  const words = commandWords(container);
  let found: { lang: Language; confidence: number; framework?: string } | undefined;
  for (const word of words) {
    const launcher = launcherOf(word);
    if (launcher) {
      found = { lang: launcher.lang, confidence: LAUNCHER_CONFIDENCE, framework: launcher.framework };
      break;
    }
    const byExtension = extensionOf(word);
    if (byExtension) {
      found = { lang: byExtension, confidence: EXTENSION_CONFIDENCE };
      break;
    }
  }
  if (!found) return undefined;
  const lang = found.lang;
  const framework =
    found.framework ?? FRAMEWORK_WORDS.find((rule) => rule.lang === lang && words.some(rule.test))?.framework;
  return { lang, confidence: found.confidence, source: 'command', ...(framework ? { framework } : {}) };
}

/** File names of the words of the command line; flags and VAR=value assignments are dropped. */
function commandWords(container: V1Container): string[] {
  const words: string[] = [];
  for (const part of [...(container.command ?? []), ...(container.args ?? [])]) {
    for (const raw of part.split(/[\s;&|()`'"]+/)) {
      if (raw === '' || raw.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw)) continue;
      const base = raw.slice(raw.lastIndexOf('/') + 1).toLowerCase();
      if (base !== '') words.push(base);
    }
  }
  return words;
}

function launcherOf(word: string): Launcher | undefined {
  if (Object.hasOwn(LAUNCHERS, word)) return LAUNCHERS[word];
  const versioned = VERSIONED.find(([pattern]) => pattern.test(word));
  return versioned ? { lang: versioned[1] } : undefined;
}

function extensionOf(word: string): Language | undefined {
  const dot = word.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const extension = word.slice(dot + 1);
  return Object.hasOwn(EXTENSIONS, extension) ? EXTENSIONS[extension] : undefined;
}
