# Sourced by bench/scale.sh and bench/own-faults.sh: `source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" <name>`.
# Sets ROOT (the repository, also the working directory), JAVA_HOME and PATH on a JDK 21+ ($JAVA_HOME when it is one,
# else the temurin 25 JDK: the build targets --release 21), and WORK, a directory /tmp/richter-<name>.XXXXXX removed on
# exit.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
if ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export PATH="$JAVA_HOME/bin:$PATH"
WORK="$(mktemp -d "/tmp/richter-$1.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# bench_build <module> [install args]: `mvn install -DskipTests [install args]`, then <module>'s classpath into
# $WORK/cp.txt; offline first, then online. Exits 2 with Maven's output when neither builds.
bench_build() {
  local module="$1"; shift
  local try
  for try in -o ""; do
    # shellcheck disable=SC2086
    if mvn -q $try install -DskipTests "$@" >"$WORK/build.log" 2>&1 \
        && mvn -q $try -pl "$module" dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >>"$WORK/build.log" 2>&1; then
      return 0
    fi
  done
  grep -v '^WARNING' "$WORK/build.log" >&2
  echo "build failed" >&2
  exit 2
}
