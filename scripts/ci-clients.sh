#!/usr/bin/env bash
# Installs the two MCP clients the wire tests speak to besides the TypeScript
# SDK: the MCP Inspector CLI (test/wire/inspector.test.ts) and the Python SDK
# client (test/wire/pythonClient.test.ts). Neither is a project dependency
# (the Inspector brings a 110 MB web UI; the Python SDK is not npm). Each is
# installed under $DPE_CLIENTS_DIR (default /tmp/dpe-clients) and its
# location printed as an environment assignment for the caller to export;
# when one cannot be installed it is said on stderr and its tests skip.
set -uo pipefail
dir="${DPE_CLIENTS_DIR:-/tmp/dpe-clients}"
mkdir -p "$dir"

INSPECTOR_VERSION=2.12.0
MCP_PYTHON_VERSION=2.3.0

inspector="$dir/inspector/node_modules/@modelcontextprotocol/inspector"
if [ ! -f "$inspector/package.json" ]; then
  npm install --prefix "$dir/inspector" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@${INSPECTOR_VERSION}" >&2 \
    || echo "ci-clients: the MCP Inspector could not be installed; its tests will skip" >&2
fi
[ -f "$inspector/package.json" ] && echo "DESIGN_PLAYBOOK_INSPECTOR=$inspector"

venv="$dir/python"
if ! "$venv/bin/python" -c 'import mcp.client.stdio' 2>/dev/null; then
  { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 0 --timeout 10 "mcp==${MCP_PYTHON_VERSION}"; } >&2 \
    || echo "ci-clients: the Python MCP SDK could not be installed; its tests will skip" >&2
fi
"$venv/bin/python" -c 'import mcp.client.stdio' 2>/dev/null && echo "DESIGN_PLAYBOOK_PYTHON=$venv/bin/python"
exit 0
