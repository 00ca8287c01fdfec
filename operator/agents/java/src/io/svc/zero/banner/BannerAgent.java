package io.svc.zero.banner;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

/**
 * svc-zero's start line for the JVM. The admission webhook appends {@code -javaagent:} flags for the OpenTelemetry Java
 * agent and then for this jar to JAVA_TOOL_OPTIONS; the JVM runs agents' {@code premain} in the order they are given,
 * so this runs after the OpenTelemetry agent has set itself up and can tell whether it really did.
 *
 * <p>The OpenTelemetry agent appends its own jar to the bootstrap class path and records in
 * {@code io.opentelemetry.javaagent.bootstrap.AgentInitializer} whether it started: that class being visible to the
 * bootstrap loader is the proof it was loaded, its {@code isAgentStarted(boolean)} (or, in older agents,
 * {@code getExtensionsClassLoader()}) that it started. Both are looked up reflectively: this jar has no dependencies.
 *
 * <p>It runs in someone else's JVM, so it never throws, and it writes to stderr, where the OpenTelemetry agent and the
 * JVM ("Picked up JAVA_TOOL_OPTIONS") write too. Compiled for Java 8, the oldest runtime the OpenTelemetry agent supports.
 */
public final class BannerAgent {
  static final String PREFIX = "[svc-zero] ";
  static final String OTEL_AGENT_JAR = "/svc-agent/java/opentelemetry-javaagent.jar";
  private static final String INITIALIZER = "io.opentelemetry.javaagent.bootstrap.AgentInitializer";
  /** Set once the line is printed, so the jar named twice (JAVA_TOOL_OPTIONS and the command line) prints once. */
  private static final String PRINTED = "svc.zero.banner.printed";

  enum OtelAgent {
    ACTIVE,
    NOT_LOADED,
    NOT_STARTED,
    DISABLED
  }

  private BannerAgent() {}

  public static void premain(String args, Instrumentation instrumentation) {
    try {
      if (System.getProperty(PRINTED) != null) return;
      System.setProperty(PRINTED, "true");
      String line = line(otelAgentState(), System.getProperty("sun.java.command"));
      if (line != null) System.err.println(line);
    } catch (Throwable ignored) {
      // Never break the application's start for a log line.
    }
  }

  /** The line to print for this state, or null to stay silent. */
  static String line(OtelAgent state, String command) {
    switch (state) {
      case ACTIVE:
        return PREFIX + "auto-instrumentation active for " + serviceName() + " (" + environment() + ")";
      case DISABLED:
        return PREFIX + "auto-instrumentation disabled: otel.javaagent.enabled / OTEL_JAVAAGENT_ENABLED is false";
      case NOT_STARTED:
        // The OpenTelemetry agent skips JDK tools (jcmd, keytool, ...) that inherit JAVA_TOOL_OPTIONS: so do we.
        if (isJdkTool(command)) return null;
        return PREFIX
            + "auto-instrumentation not active: the OpenTelemetry Java agent was loaded but did not start (see its messages above)";
      case NOT_LOADED:
      default:
        return PREFIX
            + "auto-instrumentation not active: the OpenTelemetry Java agent is not loaded (JAVA_TOOL_OPTIONS needs -javaagent:"
            + OTEL_AGENT_JAR
            + " before this agent)";
    }
  }

  static OtelAgent otelAgentState() {
    Class<?> initializer;
    try {
      initializer = Class.forName(INITIALIZER, false, null); // null: the bootstrap class loader
    } catch (ClassNotFoundException e) {
      return OtelAgent.NOT_LOADED;
    }
    if ("false".equalsIgnoreCase(config("otel.javaagent.enabled", "OTEL_JAVAAGENT_ENABLED"))) return OtelAgent.DISABLED;
    Object started = call(initializer, "isAgentStarted", true);
    if (started instanceof Boolean) return ((Boolean) started) ? OtelAgent.ACTIVE : OtelAgent.NOT_STARTED;
    if (hasMethod(initializer, "getExtensionsClassLoader")) {
      return call(initializer, "getExtensionsClassLoader", null) != null ? OtelAgent.ACTIVE : OtelAgent.NOT_STARTED;
    }
    return OtelAgent.ACTIVE; // an agent older than both methods: loaded is all that can be known
  }

  /** The OpenTelemetry agent's order: system property, then environment variable, then resource attributes. */
  static String serviceName() {
    String name = config("otel.service.name", "OTEL_SERVICE_NAME");
    if (name == null) name = resourceAttribute("service.name");
    return name != null ? name : "unknown_service:java";
  }

  static String environment() {
    String env = trimmed(System.getenv("SVC_ENV"));
    if (env == null) env = resourceAttribute("deployment.environment.name");
    if (env == null) env = resourceAttribute("deployment.environment");
    return env != null ? env : "unknown";
  }

  static String resourceAttribute(String key) {
    String attributes = config("otel.resource.attributes", "OTEL_RESOURCE_ATTRIBUTES");
    if (attributes == null) return null;
    for (String pair : attributes.split(",")) {
      int at = pair.indexOf('=');
      if (at > 0 && pair.substring(0, at).trim().equals(key)) return trimmed(pair.substring(at + 1));
    }
    return null;
  }

  /** What {@code AgentInitializer.isJdkToolMainClass} skips: main classes of the JDK's own tools. */
  static boolean isJdkTool(String command) {
    if (command == null) return false;
    String first = command.split(" ", 2)[0];
    if (first.endsWith(".jar")) return false;
    int slash = first.indexOf('/');
    String name = slash == -1 ? first : first.substring(0, slash);
    return name.startsWith("java.")
        || name.startsWith("jdk.")
        || name.startsWith("sun.")
        || name.startsWith("com.sun.tools.");
  }

  private static String config(String property, String variable) {
    String value = trimmed(System.getProperty(property));
    return value != null ? value : trimmed(System.getenv(variable));
  }

  private static String trimmed(String value) {
    if (value == null) return null;
    String t = value.trim();
    return t.isEmpty() ? null : t;
  }

  private static boolean hasMethod(Class<?> type, String name) {
    try {
      type.getMethod(name);
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** Calls a public static method with no argument or one boolean; null when it is missing or fails. */
  private static Object call(Class<?> type, String name, Boolean argument) {
    try {
      if (argument == null) return type.getMethod(name).invoke(null);
      Method method = type.getMethod(name, boolean.class);
      return method.invoke(null, argument);
    } catch (Throwable e) {
      return null;
    }
  }
}
