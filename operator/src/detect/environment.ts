import type { V1Container } from '@kubernetes/client-node';
import type { Language } from '../resource/types.js';
import { strongestPerLanguage, type Signal } from './signal.js';

/** Variable names are a weak hint on their own: a platform may set NODE_ENV on every container of a namespace. */
const ENVIRONMENT_CONFIDENCE = 0.5;

interface NameRule {
  test: (name: string) => boolean;
  lang: Language;
  framework?: string;
}

const exact =
  (...names: string[]) =>
  (name: string): boolean =>
    names.includes(name);
const prefix =
  (start: string) =>
  (name: string): boolean =>
    name.startsWith(start);

/** Framework-specific rules come first so their framework is kept for the language. */
const RULES: readonly NameRule[] = [
  { test: prefix('NEXT_'), lang: 'nodejs', framework: 'nextjs' },
  { test: exact('NODE_ENV', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'NODE_PATH'), lang: 'nodejs' },
  { test: (n) => n.startsWith('NPM_CONFIG_') || n.startsWith('YARN_'), lang: 'nodejs' },
  { test: prefix('SPRING_'), lang: 'java', framework: 'spring-boot' },
  { test: prefix('QUARKUS_'), lang: 'java', framework: 'quarkus' },
  { test: prefix('MICRONAUT_'), lang: 'java', framework: 'micronaut' },
  { test: exact('CATALINA_OPTS', 'CATALINA_HOME'), lang: 'java', framework: 'tomcat' },
  {
    test: exact(
      'JAVA_OPTS',
      'JAVA_TOOL_OPTIONS',
      'JDK_JAVA_OPTIONS',
      '_JAVA_OPTIONS',
      'JAVA_HOME',
      'JVM_OPTS',
      'MAVEN_OPTS',
    ),
    lang: 'java',
  },
  { test: prefix('DJANGO_'), lang: 'python', framework: 'django' },
  { test: prefix('FLASK_'), lang: 'python', framework: 'flask' },
  { test: prefix('CELERY_'), lang: 'python', framework: 'celery' },
  {
    test: (n) =>
      ['PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTHONPATH', 'PYTHONHASHSEED', 'GUNICORN_CMD_ARGS'].includes(
        n,
      ) ||
      n.startsWith('UVICORN_') ||
      n.startsWith('PIP_'),
    lang: 'python',
  },
  { test: exact('GOMAXPROCS', 'GOGC', 'GODEBUG', 'GOMEMLIMIT', 'GOTRACEBACK'), lang: 'go' },
  { test: prefix('ASPNETCORE_'), lang: 'dotnet', framework: 'aspnetcore' },
  { test: prefix('DOTNET_'), lang: 'dotnet' },
  { test: prefix('RAILS_'), lang: 'ruby', framework: 'rails' },
  {
    test: (n) => n === 'RACK_ENV' || n === 'RUBYOPT' || n.startsWith('BUNDLE_') || n.startsWith('RUBY_'),
    lang: 'ruby',
  },
  { test: prefix('PHP_'), lang: 'php' },
];

/**
 * Names of the container's own `env` entries (values are not read; `envFrom` cannot be seen at admission). One
 * signal per language however many names match.
 */
export function environmentSignals(container: V1Container): Signal[] {
  const signals: Signal[] = [];
  for (const entry of container.env ?? []) {
    const rule = RULES.find((r) => r.test(entry.name));
    if (rule) {
      signals.push({
        lang: rule.lang,
        confidence: ENVIRONMENT_CONFIDENCE,
        source: 'environment',
        ...(rule.framework ? { framework: rule.framework } : {}),
      });
    }
  }
  return strongestPerLanguage(signals);
}
