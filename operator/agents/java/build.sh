#!/bin/sh
# Builds svc-zero-banner.jar from src/ with the JDK alone (javac + jar): the banner has no dependencies, so it needs no
# build tool. Used by operator/images/java/Dockerfile and by test/integration/operator/java-agent.test.ts.
# Compiled for Java 8, the oldest runtime the OpenTelemetry Java agent supports.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh <output jar>}
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
# shellcheck disable=SC2046 # source paths have no spaces
javac --release 8 -Xlint:all,-options -Werror -d "$classes" $(find "$here/src" -name '*.java')
jar --create --file "$out" --manifest "$here/MANIFEST.MF" -C "$classes" .
