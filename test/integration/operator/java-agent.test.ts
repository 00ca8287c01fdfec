/**
 * The Java banner agent (operator/agents/java), built with its build.sh as operator/images/java/Dockerfile builds it,
 * and run on a tiny class with the environment the mutation produces for a Java container.
 *
 * The OpenTelemetry Java agent itself is downloaded by the image build (no Maven access here), so at its path stands a
 * jar built below that does what the real agent's bootstrap does and what the banner relies on: its premain appends
 * its own jar to the bootstrap class path and records its start in
 * io.opentelemetry.javaagent.bootstrap.AgentInitializer.isAgentStarted(boolean). This proves the banner jar and its
 * manifest, its place after the OpenTelemetry agent in JAVA_TOOL_OPTIONS, and each of its branches; that it recognises
 * the real agent is checked where the real agent exists: the image build runs both and expects the start line.
 */
import type { V1Container } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_MOUNT_PATH, JAVA_AGENT_JARS } from '../../../operator/src/markers.js';
import { admit, deploymentPod, instrumented, namespace } from '../../support/operator/admission';
import { missingTools } from '../../support/missing-tool';
import { containerProcess, onHost } from '../../support/operator/kubelet-env';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BANNER_SOURCES = join(ROOT, 'operator/agents/java');
const TOOLS = ['java', 'javac', 'jar', 'sh'] as const;
const skip = missingTools(
  'java-agent',
  TOOLS.filter(
    (tool) => spawnSync(tool, tool === 'sh' ? ['-c', 'true'] : ['--version'], { stdio: 'ignore' }).status !== 0,
  ),
  'a JDK 11+ builds the banner: javac --release 8, jar --create',
);

const NS = 'orders';
const START_LINE = '[svc-zero] auto-instrumentation active for orders-api (staging)';

/** Stand-in for opentelemetry-javaagent.jar: the bootstrap mechanics of the real agent, nothing else. */
const STAND_IN: Record<string, string> = {
  'io/opentelemetry/javaagent/OpenTelemetryAgent.java': `
package io.opentelemetry.javaagent;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;
public class OpenTelemetryAgent {
  public static void premain(String args, Instrumentation inst) throws Exception {
    File self = new File(OpenTelemetryAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    inst.appendToBootstrapClassLoaderSearch(new JarFile(self));
    ClassLoader.getSystemClassLoader().loadClass("io.opentelemetry.javaagent.bootstrap.AgentInitializer").getMethod("initialize").invoke(null);
  }
}`,
  'io/opentelemetry/javaagent/bootstrap/AgentInitializer.java': `
package io.opentelemetry.javaagent.bootstrap;
public final class AgentInitializer {
  private static volatile boolean agentStarted = false;
  public static void initialize() {
    if (AgentInitializer.class.getClassLoader() != null) throw new IllegalStateException("not on the bootstrap class path");
    if ("true".equals(System.getenv("STAND_IN_FAILS"))) { System.err.println("[stand-in otel agent] failed to start"); return; }
    agentStarted = true;
    System.err.println("[stand-in otel agent] started");
  }
  public static boolean isAgentStarted(boolean vmStarted) { return vmStarted && agentStarted; }
}`,
};

const APP =
  'public class Hello { public static void main(String[] args) { System.out.println("hello from the app"); } }\n';

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  if (result.error) throw result.error;
  return result;
}

function mustRun(command: string, args: string[], cwd?: string): void {
  const result = run(command, args, { cwd });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
}

describe.skipIf(skip)('Java banner agent', () => {
  let work: string;
  let volume: string;
  let appDir: string;
  const banner = () => onHost(JAVA_AGENT_JARS[1], { [AGENT_MOUNT_PATH]: volume });
  const setup = instrumented(NS, 'https://ingest.example.com', 'svc_ing_test-key', 'staging');

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'svc-java-agent-'));
    volume = join(work, 'volume');
    appDir = join(work, 'app');
    mkdirSync(join(volume, 'java'), { recursive: true });
    mkdirSync(appDir);
    // The banner, as the image build makes it.
    mustRun('sh', [join(BANNER_SOURCES, 'build.sh'), banner()]);
    // The stand-in, at the OpenTelemetry agent's path.
    const standIn = join(work, 'stand-in');
    for (const [path, source] of Object.entries(STAND_IN)) {
      mkdirSync(dirname(join(standIn, 'src', path)), { recursive: true });
      writeFileSync(join(standIn, 'src', path), source);
    }
    mustRun('javac', [
      '--release',
      '8',
      '-Xlint:-options',
      '-d',
      join(standIn, 'classes'),
      ...Object.keys(STAND_IN).map((p) => join(standIn, 'src', p)),
    ]);
    writeFileSync(join(standIn, 'MANIFEST.MF'), 'Premain-Class: io.opentelemetry.javaagent.OpenTelemetryAgent\n');
    mustRun('jar', [
      '--create',
      '--file',
      onHost(JAVA_AGENT_JARS[0], { [AGENT_MOUNT_PATH]: volume }),
      '--manifest',
      join(standIn, 'MANIFEST.MF'),
      '-C',
      join(standIn, 'classes'),
      '.',
    ]);
    writeFileSync(join(appDir, 'Hello.java'), APP);
    mustRun('javac', ['-d', appDir, join(appDir, 'Hello.java')]);
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function appContainer(env: V1Container['env'] = []): V1Container {
    return { name: 'app', image: 'eclipse-temurin:17-jre', command: ['java', '-cp', '/app', 'Hello'], env };
  }

  /** Runs the patched container's command with the environment the kubelet would give it. */
  function runPod(container: V1Container, extraEnv: Record<string, string> = {}) {
    const admitted = admit(deploymentPod('orders-api', NS, container), namespace(NS), setup.instrumentation);
    expect(admitted.decision).toMatchObject({ injected: true, lang: 'java' });
    const process_ = containerProcess(
      admitted.app,
      { pod: admitted.pod, secrets: [setup.secret] },
      { [AGENT_MOUNT_PATH]: volume, '/app': appDir },
    );
    const result = run(process_.argv[0]!, process_.argv.slice(1), { env: { ...process_.env, ...extraEnv } });
    return {
      ...result,
      env: process_.env,
      svcLines: result.stderr.split('\n').filter((l) => l.startsWith('[svc-zero]')),
    };
  }

  it('is a Java 8 agent jar whose manifest names its premain class', () => {
    const extracted = join(work, 'extracted');
    mkdirSync(extracted);
    mustRun('jar', ['--extract', '--file', banner()], extracted);
    const manifest = readFileSync(join(extracted, 'META-INF/MANIFEST.MF'), 'utf8');
    expect(manifest).toMatch(/^Premain-Class: io\.svc\.zero\.banner\.BannerAgent\r?$/m);
    const classFile = readFileSync(join(extracted, 'io/svc/zero/banner/BannerAgent.class'));
    expect(classFile.readUInt32BE(0)).toBe(0xcafebabe);
    expect(classFile.readUInt16BE(6), 'class file major version 52 = Java 8').toBe(52);
  });

  it('prints the start line after the OpenTelemetry agent started, in the order JAVA_TOOL_OPTIONS loads them', () => {
    const result = runPod(appContainer());
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('hello from the app\n');
    expect(result.env.JAVA_TOOL_OPTIONS).toBe(
      JAVA_AGENT_JARS.map((jar) => `-javaagent:${onHost(jar, { [AGENT_MOUNT_PATH]: volume })}`).join(' '),
    );
    // What the real agent would read to export to ingest.
    expect(result.env).toMatchObject({
      OTEL_SERVICE_NAME: 'orders-api',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://ingest.example.com/otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'X-API-Key=svc_ing_test-key',
    });
    expect(result.svcLines).toEqual([START_LINE]);
    expect(result.stderr.indexOf('[stand-in otel agent] started')).toBeLessThan(result.stderr.indexOf(START_LINE));
  });

  it('keeps the app’s own JAVA_TOOL_OPTIONS and still prints once when its jar is given twice', () => {
    const result = run('java', [`-javaagent:${banner()}`, '-cp', appDir, 'Hello'], {
      env: runPod(appContainer([{ name: 'JAVA_TOOL_OPTIONS', value: '-Xmx64m' }])).env,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('Picked up JAVA_TOOL_OPTIONS: -Xmx64m -javaagent:');
    expect(result.stderr.split('\n').filter((l) => l.startsWith('[svc-zero]'))).toEqual([START_LINE]);
  });

  it('says the OpenTelemetry agent is not loaded when only the banner is, and the app runs', () => {
    const result = run('java', ['-cp', appDir, 'Hello'], {
      env: { JAVA_TOOL_OPTIONS: `-javaagent:${banner()}`, OTEL_SERVICE_NAME: 'orders-api' },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('hello from the app\n');
    expect(result.stderr).toContain(
      `[svc-zero] auto-instrumentation not active: the OpenTelemetry Java agent is not loaded (JAVA_TOOL_OPTIONS needs -javaagent:${JAVA_AGENT_JARS[0]} before this agent)`,
    );
  });

  it('says so when the OpenTelemetry agent is disabled, or loaded but not started', () => {
    const disabled = runPod(appContainer([{ name: 'OTEL_JAVAAGENT_ENABLED', value: 'false' }]));
    expect(disabled.status).toBe(0);
    expect(disabled.svcLines).toEqual([
      '[svc-zero] auto-instrumentation disabled: otel.javaagent.enabled / OTEL_JAVAAGENT_ENABLED is false',
    ]);

    const failed = runPod(appContainer(), { STAND_IN_FAILS: 'true' });
    expect(failed.status).toBe(0);
    expect(failed.stdout).toBe('hello from the app\n');
    expect(failed.svcLines).toEqual([
      '[svc-zero] auto-instrumentation not active: the OpenTelemetry Java agent was loaded but did not start (see its messages above)',
    ]);
  });

  it('stays silent in JDK tools that inherit JAVA_TOOL_OPTIONS, which the OpenTelemetry agent does not start in', () => {
    const env = runPod(appContainer(), { STAND_IN_FAILS: 'true' }).env;
    const result = run('jar', ['--version'], { env: { ...env, STAND_IN_FAILS: 'true' } });
    expect(result.status).toBe(0);
    expect(result.stderr).not.toContain('[svc-zero]');
  });
});
