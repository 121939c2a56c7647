# Sourced by the benches that start a function's JVM: `source "$(dirname "${BASH_SOURCE[0]}")/jvm-opts.sh"`.
# function_jvm_opts <LogicalId> [template]: the JVM flags Lambda starts that function with, from template.yaml (or the
# given template): its own Environment JAVA_TOOL_OPTIONS, else the one under Globals.Function (SAM merges the Globals'
# variables into each function's, a function's own value winning). Prints nothing when neither sets it.
function_jvm_opts() {
  awk -v id="$1" '
    /^[A-Za-z]/ { globals = ($0 ~ /^Globals:/); fn = 0 }
    /^  [A-Za-z]/ { fn = ($0 ~ "^  " id ":") }
    /JAVA_TOOL_OPTIONS:/ {
      v = $0; sub(/.*JAVA_TOOL_OPTIONS: *"/, "", v); sub(/".*/, "", v)
      if (fn) own = v; else if (globals) global = v
    }
    END { print (own != "" ? own : global) }' "${2:-$ROOT/template.yaml}"
}
