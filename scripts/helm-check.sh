#!/usr/bin/env bash
# Checks the Helm chart deploy/helm/brook offline (no cluster): `helm lint --strict` and `helm
# template` with the default values and each ci/*.yaml; every rendered object validated against the
# Kubernetes API's schemas with `kubernetes-validate --strict` (unknown fields are errors); the
# ServiceMonitor against the prometheus-operator CRD kept in deploy/helm/schemas (unknown fields are
# errors); what each values set must render (deploy/helm/check_rendered.py), every pod without
# service-link variables (enableServiceLinks: false); values the schema or
# the templates must refuse, each error naming the key; and the chart's copy of the Grafana
# dashboard being identical to deploy/grafana/brook-dashboard.json.
#
# Tools, installed once into $BROOK_TOOLS_DIR (default $HOME/.cache/brook/tools, as
# scripts/install-tools.sh) and reused while their version matches the pins below:
#   helm                  scripts/helm-tools.sh: `go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION`
#   kubernetes-validate   a venv in $BROOK_TOOLS_DIR/kubernetes-validate (pip from PyPI), whose
#                         PyYAML and jsonschema also run check_rendered.py
# Needs go, python3 (with venv) and network for the first install only; no root.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STEP=helm-check

# Pins (helm's are in scripts/helm-tools.sh).
. scripts/helm-tools.sh
KUBERNETES_VALIDATE_VERSION=1.37.0
JSONSCHEMA_VERSION=4.26.0
K8S_SCHEMA_VERSION=1.37.0   # one of the versions kubernetes-validate 1.37.0 bundles (1.25 .. 1.37)

VENV="$BROOK_TOOLS_DIR/kubernetes-validate"
CHART=deploy/helm/brook
CRD=deploy/helm/schemas/monitoring.coreos.com_servicemonitors.yaml
CHECKER=deploy/helm/check_rendered.py
DASHBOARD=deploy/grafana/brook-dashboard.json
RELEASE=rel
NAMESPACE=brook-ns   # check_rendered.py expects these two

passed=0 failed=0 skipped=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

ok() { passed=$((passed + 1)); echo "$STEP: ok   $1"; }
# bad WHAT REASON-FILE-OR-TEXT: counts a failure and prints the reason, indented.
bad() {
  failed=$((failed + 1))
  echo "$STEP: FAILED $1"
  if [[ -f "$2" ]]; then sed 's/^/    /' "$2" | head -n 40; else echo "    $2"; fi
}
finish() {
  echo "$STEP: $passed passed, $failed failed, $skipped skipped"
  if [[ "$failed" -eq 0 ]]; then exit 0; else exit 1; fi
}
# check WHAT COMMAND...: ok when COMMAND exits 0, else FAILED with its output as the reason.
check() {
  local what="$1"; shift
  if "$@" >"$work/out" 2>&1; then ok "$what"; else bad "$what" "$work/out"; fi
}

# ---- tools ----------------------------------------------------------------------------------------
kv_installed_version() {
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("kubernetes-validate"), m.version("jsonschema"))' 2>/dev/null
}

install_kubernetes_validate() {
  if [[ -x "$VENV/bin/kubernetes-validate" ]] && [[ "$(kv_installed_version)" == "$KUBERNETES_VALIDATE_VERSION $JSONSCHEMA_VERSION" ]]; then
    echo "$STEP: kubernetes-validate $KUBERNETES_VALIDATE_VERSION cached -> $VENV"
    return 0
  fi
  echo "$STEP: installing kubernetes-validate==$KUBERNETES_VALIDATE_VERSION jsonschema==$JSONSCHEMA_VERSION into the venv $VENV ..."
  local start=$SECONDS
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    # Debian keeps venv in a package of its own; as root (CI), install it
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
      echo "$STEP: python3 -m venv failed: apt-get install python3-venv"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null; }
    fi
    python3 -m venv "$VENV" || {
      echo "$STEP: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; return 1; }
  fi
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" "jsonschema==$JSONSCHEMA_VERSION" || return 1
  echo "$STEP: kubernetes-validate $(kv_installed_version | cut -d' ' -f1) installed in $((SECONDS - start)) s"
}

tools_start=$SECONDS
if ! install_helm >"$work/install" 2>&1; then cat "$work/install"; bad "install helm $HELM_VERSION" "see above"; finish; fi
cat "$work/install"
if ! install_kubernetes_validate >"$work/install" 2>&1; then cat "$work/install"; bad "install kubernetes-validate" "see above"; finish; fi
cat "$work/install"
echo "$STEP: tools ready in $((SECONDS - tools_start)) s"
PY="$VENV/bin/python"
KV="$VENV/bin/kubernetes-validate"
if [[ ! -d "$VENV/lib" ]] || ! ls -d "$VENV"/lib/python3*/site-packages/kubernetes_validate/kubernetes-json-schema/v"$K8S_SCHEMA_VERSION"-local-strict >/dev/null 2>&1; then
  bad "kubernetes-validate has schemas for Kubernetes $K8S_SCHEMA_VERSION" "not bundled: pick another K8S_SCHEMA_VERSION"
fi

# ---- the dashboard copy ---------------------------------------------------------------------------
if cmp "$DASHBOARD" "$CHART/files/brook-dashboard.json" >"$work/out" 2>&1; then
  ok "$CHART/files/brook-dashboard.json is identical to $DASHBOARD"
else
  echo "copy it: cp $DASHBOARD $CHART/files/brook-dashboard.json" >>"$work/out"
  bad "$CHART/files/brook-dashboard.json is identical to $DASHBOARD" "$work/out"
fi

# ---- lint, render, validate each values set -------------------------------------------------------
# helm template leaves NOTES.txt out: a copy of the chart renders it into a ConfigMap to check it.
notes_chart="$work/notes-chart/brook"
mkdir -p "$work/notes-chart"
cp -r "$CHART" "$notes_chart"
cat >"$notes_chart/templates/zz-notes-for-check.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes-for-check
data:
  notes: {{ include (print $.Template.BasePath "/NOTES.txt") . | toJson }}
EOF
sets=(default)
for f in "$CHART"/ci/*.yaml; do sets+=("$(basename "$f" .yaml)"); done
for name in "${sets[@]}"; do
  args=()
  [[ "$name" == default ]] || args=(-f "$CHART/ci/$name.yaml")
  check "helm lint --strict ($name)" "$HELM" lint --strict "$CHART" "${args[@]}"
  out="$work/$name.yaml"
  if ! "$HELM" template "$RELEASE" "$CHART" -n "$NAMESPACE" "${args[@]}" >"$out" 2>"$work/err"; then
    bad "helm template ($name)" "$work/err"
    continue
  fi
  if ! kinds="$("$PY" "$CHECKER" split "$out" "$work/$name.core.yaml" "$work/$name.sm.yaml" 2>"$work/err")"; then
    bad "helm template ($name): output is not YAML objects" "$work/err"
    continue
  fi
  ok "helm template ($name): $kinds"

  # Every object but the ServiceMonitor against the Kubernetes $K8S_SCHEMA_VERSION API, strictly.
  # A kind it has no schema for is only a warning there: here it is a failure.
  if "$KV" --strict --quiet -k "$K8S_SCHEMA_VERSION" "$work/$name.core.yaml" >"$work/out" 2>&1 \
     && ! grep -q "Couldn't find schema" "$work/out"; then
    ok "kubernetes-validate --strict -k $K8S_SCHEMA_VERSION ($name)"
  else
    bad "kubernetes-validate --strict -k $K8S_SCHEMA_VERSION ($name)" "$work/out"
  fi
  if [[ -s "$work/$name.sm.yaml" ]] && grep -q '^kind: ServiceMonitor' "$work/$name.sm.yaml"; then
    check "ServiceMonitor valid for the prometheus-operator CRD, strictly ($name)" "$PY" "$CHECKER" crd "$CRD" "$work/$name.sm.yaml"
  fi
  check "rendered objects as expected for the values ($name)" "$PY" "$CHECKER" expect "$name" "$out" "$CHART" "$ROOT"
  check "every pod has enableServiceLinks: false ($name)" "$PY" "$CHECKER" service-links "$out"
  if "$HELM" template "$RELEASE" "$notes_chart" -n "$NAMESPACE" "${args[@]}" \
       --show-only templates/zz-notes-for-check.yaml >"$work/notes.yaml" 2>"$work/err"; then
    check "NOTES.txt says one replica and how to try it ($name)" "$PY" "$CHECKER" notes "$name" "$work/notes.yaml" "$CHART"
  else
    bad "NOTES.txt renders ($name)" "$work/err"
  fi
done

# ---- values that must be refused, each error naming the key ----------------------------------------
# must_fail WHAT PATTERN HELM-TEMPLATE-ARGS...: helm template must fail with PATTERN (grep -E) in its error.
must_fail() {
  local what="$1" pattern="$2"; shift 2
  if "$HELM" template "$RELEASE" "$CHART" -n "$NAMESPACE" "$@" >/dev/null 2>"$work/err"; then
    bad "refused: $what" "helm template $* rendered without an error"
  elif grep -qE -- "$pattern" "$work/err"; then
    ok "refused: $what ($(grep -m1 -oE -- "$pattern" "$work/err" | head -n 1))"
  else
    bad "refused: $what" "the error does not name the key (/$pattern/): $(tr '\n' ' ' <"$work/err")"
  fi
}
must_fail "an unknown top-level key" "additional properties 'replicaCount'" --set replicaCount=1
must_fail "an unknown nested key" "at '/persistence': additional properties 'sise'" --set persistence.sise=1Gi
must_fail "a wrong type" "at '/persistence/enabled': got string, want boolean" --set-string persistence.enabled=yes
must_fail "replicas other than 1" "at '/replicas': value must be 1" --set replicas=2
must_fail "a negative volume size" "at '/persistence/size'" --set persistence.size=-1Gi
must_fail "a bad enum (service.type)" "at '/service/type': value must be one of" --set service.type=Ingress
must_fail "a bad enum (a permission)" "at '/auth/permissions/0/permissions/0': value must be one of" \
  --set 'auth.permissions[0].principal=app,auth.permissions[0].permissions[0]=write,auth.permissions[0].resource=topic:x'
must_fail "a broker key the chart sets itself (config.data.dir)" "at '/config': additional properties 'data.dir'" \
  --set 'config.data\.dir=/elsewhere'
must_fail "an unknown broker key (config.default.partition)" "additional properties 'default.partition'" \
  --set 'config.default\.partition=3'
must_fail "a wrong type of a broker key" "at '/config/default.partitions': got string, want integer" \
  --set-string 'config.default\.partitions=three'
must_fail "a negative probe threshold" "at '/probes/startup/failureThreshold'" --set probes.startup.failureThreshold=-1
must_fail "terminationGracePeriodSeconds not above shutdown.grace.ms" "terminationGracePeriodSeconds: .* shutdown.grace.ms" \
  --set 'config.shutdown\.grace\.ms=60000'
must_fail "existing token Secret without a token for the helm test" "tests.tokenSecret" \
  --set auth.enabled=true --set auth.existingSecret=mine
must_fail "existing token Secret without a token for the ServiceMonitor" "metrics.serviceMonitor.bearerTokenSecret" \
  --set auth.enabled=true --set auth.existingSecret=mine --set tests.enabled=false --set metrics.serviceMonitor.enabled=true
must_fail "a broker key the chart sets itself (config.kafka.listen)" "at '/config': additional properties 'kafka.listen'" \
  --set 'config.kafka\.listen=0.0.0.0:9093'
must_fail "an advertised Kafka address without a port" "at '/kafka/advertised'" --set kafka.advertised=kafka.example.com
must_fail "an advertised Kafka address on a wildcard host" "at '/kafka/advertised'" --set kafka.advertised=0.0.0.0:9092
must_fail "a bad enum (kafka.external.type)" "at '/kafka/external/type': value must be one of" \
  --set kafka.external.enabled=true --set kafka.external.type=ClusterIP --set kafka.advertised=k.example.com:9092
must_fail "the external Kafka Service without kafka.advertised" "kafka.advertised: set it" --set kafka.external.enabled=true
must_fail "an external NodePort without kafka.external.nodePort" "kafka.external.nodePort: set it" \
  --set kafka.external.enabled=true --set kafka.external.type=NodePort --set kafka.advertised=203.0.113.10:30092
must_fail "an advertised port that is not the external node port" "kafka.advertised: port 9092 is not kafka.external.nodePort 30092" \
  --set kafka.external.enabled=true --set kafka.external.type=NodePort --set kafka.external.nodePort=30092 \
  --set kafka.advertised=203.0.113.10:9092
must_fail "an advertised port that is not the external LoadBalancer's port" "kafka.advertised: port 9093 is not kafka.external.port 9092" \
  --set kafka.external.enabled=true --set kafka.advertised=kafka.example.com:9093
must_fail "the external Kafka Service with the listener off" "kafka.external.enabled: the Kafka listener is off" \
  --set kafka.enabled=false --set kafka.external.enabled=true --set kafka.advertised=kafka.example.com:9092
must_fail "a forward route name with a dot (it would split the config key)" "invalid propertyName 'a.b'" \
  --set 'forward.routes.a\.b.source=orders' --set 'forward.routes.a\.b.bootstrap\.servers=k:9092'
must_fail "a forward route without bootstrap.servers" "at '/forward/routes/orders': missing property 'bootstrap.servers'" \
  --set forward.routes.orders.source=orders
must_fail "an unknown forward route key" "at '/forward/routes/orders': additional properties 'bootstrap' not allowed" \
  --set forward.routes.orders.source=orders --set 'forward.routes.orders.bootstrap\.servers=k:9092' \
  --set forward.routes.orders.bootstrap=k:9092
must_fail "a forward Secret name that is no Secret name" "at '/forward/secrets/0'" --set 'forward.secrets[0]=Bad_Name'

finish
