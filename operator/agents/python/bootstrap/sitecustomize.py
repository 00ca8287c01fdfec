"""svc-zero Python agent bootstrap.

The admission webhook prepends /svc-agent/python/bootstrap (this directory) and /svc-agent/python (the OpenTelemetry
packages, installed there by the agent image) to the application container's PYTHONPATH. When the interpreter starts,
Python's ``site`` module imports the first ``sitecustomize`` module on sys.path, which is this one. It

1. moves the agent's package directory behind the application's own packages on sys.path, so a library both ship
   (protobuf, wrapt, typing_extensions, ...) is the application's version (the OpenTelemetry operator's image shadows
   it, a documented source of broken applications);
2. runs the application's own ``sitecustomize`` if there is one further on the path, because Python only ever
   imports the first one and ours would otherwise hide it;
3. points the OpenTelemetry SDK at ``$SVC_INGEST_URL/otlp`` over OTLP http/protobuf with the ingest key in
   ``X-API-Key``, unless the OTEL_* variables the webhook sets already say so;
4. calls the OpenTelemetry distro's auto-instrumentation ``initialize()`` and prints the start line.

It runs inside someone else's process, so nothing here may raise: every problem costs one line on stderr (stdout is
often the application's data channel) and the application runs uninstrumented.
"""

import os
import re
import sys

_PREFIX = "[svc-zero]"
_HERE = os.path.dirname(os.path.abspath(__file__))
# The OpenTelemetry packages sit beside bootstrap/ (AGENT_IMAGE_DIR/python).
_PACKAGES = os.path.dirname(_HERE)
# Package-manager and build-tool entry points that inherit PYTHONPATH: they only start the real application, which
# loads the agent itself (``python -m pip`` cannot be told apart this early and is instrumented like any script).
_TOOLS = re.compile(r"^(pip[0-9.]*|pipx|pipenv|poetry|pdm|hatch)$")


def _say(line):
    try:
        sys.stderr.write("%s %s\n" % (_PREFIX, line))
        sys.stderr.flush()
    except Exception:  # stderr closed: nothing left to tell anyone
        pass


def _same_dir(entry, directory):
    try:
        return os.path.realpath(entry or os.getcwd()) == os.path.realpath(directory)
    except Exception:
        return False


def _is_here(entry):
    return _same_dir(entry, _HERE)


def _agent_packages_last():
    """PYTHONPATH puts the agent's packages before site-packages; the application's versions should win."""
    if any(_same_dir(entry, _PACKAGES) for entry in sys.path):
        sys.path[:] = [entry for entry in sys.path if not _same_dir(entry, _PACKAGES)] + [_PACKAGES]


def _run_next_sitecustomize():
    """Executes the next ``sitecustomize`` on sys.path after ours, as ``site`` would have had ours not been first."""
    import importlib.machinery
    import importlib.util

    entries = list(sys.path)
    mine = [i for i, entry in enumerate(entries) if _is_here(entry)]
    later = [entry for entry in entries[(mine[-1] + 1 if mine else 0):] if not _is_here(entry)]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", later)
    if spec is None or spec.loader is None:
        return
    if spec.origin and os.path.realpath(spec.origin) == os.path.realpath(__file__):
        return
    ours = sys.modules.get("sitecustomize")
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module  # `import sitecustomize` in the app now finds its own module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        # What `site` prints for a failing sitecustomize, so the application's own error reads as it would without us.
        if ours is not None:
            sys.modules["sitecustomize"] = ours
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n" % (type(error).__name__, error))


def _resource_attributes(raw):
    """OTEL_RESOURCE_ATTRIBUTES (``k=v,k2=v2``, values percent-encoded) as a dict; malformed pairs are skipped."""
    from urllib.parse import unquote

    attributes = {}
    for pair in (raw or "").split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            attributes[key.strip()] = unquote(value.strip())
    return attributes


def _script_name():
    argv0 = (getattr(sys, "argv", None) or [""])[0]
    if argv0 in ("", "-c", "-m", "-"):
        return ""
    name = os.path.basename(argv0)
    return name[:-3] if name.endswith(".py") else name


def _configure(environ):
    """Sets the OTEL_* defaults for our ingest. Returns (service, env), or a reason to stay out as a string."""
    ingest = environ.get("SVC_INGEST_URL", "").strip().rstrip("/")
    key = environ.get("SVC_API_KEY", "").strip()
    if not ingest:
        return "SVC_INGEST_URL is not set (no SvcInstrumentation ingest URL reached this container)"
    if not re.match(r"^https?://", ingest):
        return "SVC_INGEST_URL must be an http(s) URL, not %r" % ingest
    if not key:
        return "SVC_API_KEY is not set (the ingest key Secret was not mounted into this container)"

    endpoint = ingest + "/otlp"
    environ.setdefault("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    environ.setdefault("OTEL_EXPORTER_OTLP_HEADERS", "X-API-Key=" + key)
    if environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") == endpoint:
        # Ingest speaks OTLP/HTTP only; the distro would otherwise default to gRPC.
        environ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
    for signal in ("TRACES", "METRICS", "LOGS"):
        environ.setdefault("OTEL_%s_EXPORTER" % signal, "otlp")
    # Records of the standard logging module go out as OTLP logs, as the Node agent sends pino/winston/bunyan ones.
    environ.setdefault("OTEL_PYTHON_LOGGING_AUTO_INSTRUMENTATION_ENABLED", "true")

    attributes = _resource_attributes(environ.get("OTEL_RESOURCE_ATTRIBUTES"))
    service = (
        environ.get("OTEL_SERVICE_NAME", "").strip()
        or attributes.get("service.name")
        or _script_name()
        or "unknown_service:python"
    )
    environ["OTEL_SERVICE_NAME"] = service
    env = (
        environ.get("SVC_ENV", "").strip()
        or attributes.get("deployment.environment.name")
        or attributes.get("deployment.environment")
        or "unknown"
    )
    additions = []
    if "deployment.environment.name" not in attributes:
        additions.append("deployment.environment.name=" + env)
    if "telemetry.distro.name" not in attributes:
        additions.append("telemetry.distro.name=svc-zero")
    if additions:
        existing = environ.get("OTEL_RESOURCE_ATTRIBUTES", "").strip().strip(",")
        environ["OTEL_RESOURCE_ATTRIBUTES"] = ",".join(([existing] if existing else []) + additions)
    return service, env


def _start():
    if getattr(sys, "_svc_zero_agent", False):
        return
    sys._svc_zero_agent = True

    _agent_packages_last()
    try:
        _run_next_sitecustomize()
    except Exception as error:
        _say("could not run the application's own sitecustomize: %s: %s" % (type(error).__name__, error))

    if _TOOLS.match(_script_name()):
        return
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        _say("auto-instrumentation disabled: OTEL_SDK_DISABLED is true")
        return
    configured = _configure(os.environ)
    if isinstance(configured, str):
        _say("auto-instrumentation disabled: " + configured)
        return
    service, env = configured

    try:
        from opentelemetry.instrumentation.auto_instrumentation import initialize
    except ImportError as error:
        _say(
            "auto-instrumentation not active: the OpenTelemetry packages cannot be imported (%s); "
            "they belong in /svc-agent/python, copied there by the svc-agent-init container" % error
        )
        return
    try:
        initialize(swallow_exceptions=False)
    except Exception as error:
        _say("auto-instrumentation failed to start: %s: %s (the application runs; its telemetry may be incomplete)" % (type(error).__name__, error))
        return
    _say("auto-instrumentation active for %s (%s)" % (service, env))


try:
    _start()
except Exception as _error:  # the last guard: the application must start whatever happened above
    _say("auto-instrumentation disabled: %s: %s" % (type(_error).__name__, _error))
