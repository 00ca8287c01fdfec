import { JAVA_AGENT_JARS, NODE_AGENT_ENTRY, PYTHON_AGENT_PATHS } from '../markers.js';
import type { AgentLanguage } from '../resource/types.js';

/**
 * The variable that makes a runtime load our agent, and how our part joins a value the app already set: appended
 * after it for NODE_OPTIONS and JAVA_TOOL_OPTIONS (the app's flags keep their place and meaning), prepended for
 * PYTHONPATH (our sitecustomize must be found first). `extend` returns undefined when the agent is already there, so
 * nothing is ever duplicated, and `notes` names another tracer the value already loads (two tracers conflict).
 */
export interface AgentVariable {
  name: string;
  extend(existing: string | undefined): string | undefined;
  notes(existing: string): string[];
}

/** Agents and APM tools that conflict with ours when loaded into the same runtime. */
const OTHER_TRACER =
  /opentelemetry|dd-trace|dd-java-agent|newrelic|elastic-apm|elastic-otel|applicationinsights|appdynamics|instana|dynatrace|signalfx|splunk-otel|skywalking|pinpoint|glowroot|sentry/i;

const NODE_OPTIONS: AgentVariable = {
  name: 'NODE_OPTIONS',
  extend(existing) {
    const flag = `--require ${NODE_AGENT_ENTRY}`;
    if (existing === undefined || existing === '') return flag;
    return preloads(existing).includes(NODE_AGENT_ENTRY) ? undefined : `${existing} ${flag}`;
  },
  notes(existing) {
    return preloads(existing)
      .filter((module) => module !== NODE_AGENT_ENTRY && OTHER_TRACER.test(module))
      .map(
        (module) =>
          `NODE_OPTIONS already preloads ${module}: two tracers in one process conflict, if they do set annotation svc.io/exclude=true and instrument manually`,
      );
  },
};

const JAVA_TOOL_OPTIONS: AgentVariable = {
  name: 'JAVA_TOOL_OPTIONS',
  extend(existing) {
    const present = javaAgents(existing ?? '');
    const missing = JAVA_AGENT_JARS.filter((jar) => !present.includes(jar)).map((jar) => `-javaagent:${jar}`);
    if (missing.length === 0) return undefined;
    const flags = missing.join(' ');
    return existing === undefined || existing === '' ? flags : `${existing} ${flags}`;
  },
  notes(existing) {
    return javaAgents(existing)
      .filter((jar) => !(JAVA_AGENT_JARS as readonly string[]).includes(jar) && OTHER_TRACER.test(jar))
      .map(
        (jar) =>
          `JAVA_TOOL_OPTIONS already loads -javaagent:${jar}: two tracing agents in one JVM conflict, if they do set annotation svc.io/exclude=true and instrument manually`,
      );
  },
};

const PYTHONPATH: AgentVariable = {
  name: 'PYTHONPATH',
  extend(existing) {
    const present = (existing ?? '').split(':');
    const missing = PYTHON_AGENT_PATHS.filter((path) => !present.includes(path));
    if (missing.length === 0) return undefined;
    const ours = missing.join(':');
    return existing === undefined || existing === '' ? ours : `${ours}:${existing}`;
  },
  notes() {
    return [];
  },
};

const VARIABLES: Readonly<Record<AgentLanguage, AgentVariable>> = {
  nodejs: NODE_OPTIONS,
  java: JAVA_TOOL_OPTIONS,
  python: PYTHONPATH,
};

export function agentVariable(lang: AgentLanguage): AgentVariable {
  return VARIABLES[lang];
}

/** Every variable an agent may be loaded through (the property tests allow exactly these to grow). */
export const AGENT_VARIABLE_NAMES: readonly string[] = Object.values(VARIABLES).map((v) => v.name);

/** Modules named by `--require x`, `--require=x`, `-r x`, `--import x`, `--import=x` (Node's own option syntax). */
function preloads(options: string): string[] {
  const words = options.split(/\s+/).filter((w) => w !== '');
  const modules: string[] = [];
  words.forEach((word, i) => {
    const inline = /^(--require|--import)=(.+)$/.exec(word);
    if (inline?.[2]) modules.push(inline[2]);
    else if (['--require', '-r', '--import'].includes(word) && words[i + 1]) modules.push(words[i + 1] as string);
  });
  return modules;
}

/** Jar paths of `-javaagent:<jar>[=options]` flags. */
function javaAgents(options: string): string[] {
  return options
    .split(/\s+/)
    .filter((w) => w.startsWith('-javaagent:'))
    .map((w) => w.slice('-javaagent:'.length).split('=')[0] ?? '');
}
