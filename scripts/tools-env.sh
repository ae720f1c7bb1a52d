# shellcheck shell=bash
# Source this file (`. scripts/tools-env.sh`) to put Brook's Go-built tools
# (buf, grpcurl; installed by scripts/install-tools.sh) and the preinstalled Go
# toolchain on PATH. Safe to source more than once.
export BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
case ":$PATH:" in *":$BROOK_TOOLS_DIR/bin:"*) ;; *) PATH="$BROOK_TOOLS_DIR/bin:$PATH" ;; esac
if [ -d /usr/local/go/bin ]; then
  case ":$PATH:" in *":/usr/local/go/bin:"*) ;; *) PATH="$PATH:/usr/local/go/bin" ;; esac
fi
export PATH
