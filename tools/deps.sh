#!/usr/bin/env bash
# Installs the Debian packages given as arguments when they are missing (as root), or prints the exact
# command to run. Idempotent and fast when everything is present (one dpkg query, no network).
set -euo pipefail
missing=()
for p in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#@} Debian packages present"
  exit 0
fi
echo "deps: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: not root; run:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Try without refreshing the package lists first (fast, works offline when the .debs are cached);
# refresh and retry when that fails.
if ! apt-get install -y -q "${missing[@]}"; then
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
fi
