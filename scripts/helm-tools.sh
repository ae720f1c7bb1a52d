# shellcheck shell=bash
# helm for the scripts that render the chart (scripts/helm-check.sh, scripts/docker-test.sh). Source
# it (. scripts/helm-tools.sh), then install_helm: `go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION`
# into $BROOK_TOOLS_DIR/bin (default $HOME/.cache/brook/tools, as scripts/install-tools.sh) with the
# version and Kubernetes version ldflags of helm's own Makefile, once, reused while the version
# matches. Messages start with "$STEP:". Needs go and network for the first install only.

# helm v3.22.0 is the newest v3 on the Go module proxy that builds here; it is built against
# k8s.io/client-go v0.37, so its default Kubernetes version (for lint and template) is 1.37.
HELM_VERSION=v3.22.0
HELM_K8S_MINOR=37

BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
HELM="$BROOK_TOOLS_DIR/bin/helm"

install_helm() {
  if [[ -x "$HELM" ]] && [[ "$("$HELM" version --template '{{.Version}}' 2>/dev/null)" == "$HELM_VERSION" ]]; then
    echo "$STEP: helm $HELM_VERSION cached -> $HELM"
    return 0
  fi
  command -v go >/dev/null || { echo "$STEP: go is needed to build helm" >&2; return 1; }
  echo "$STEP: installing helm $HELM_VERSION: go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION (a few minutes) ..."
  local start=$SECONDS
  local ld="-w -s -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  ld+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  local pkg
  for pkg in pkg/lint/rules pkg/chartutil; do
    ld+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$HELM_K8S_MINOR"
  done
  mkdir -p "$BROOK_TOOLS_DIR/bin"
  GOBIN="$BROOK_TOOLS_DIR/bin" go install -trimpath -ldflags "$ld" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" || return 1
  echo "$STEP: helm $("$HELM" version --template '{{.Version}}') installed in $((SECONDS - start)) s -> $HELM"
}
