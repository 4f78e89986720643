#!/usr/bin/env bash
# Installs the Debian bookworm packages cbana needs, only those missing.
# Needs root, or sudo for a user that has it.
set -euo pipefail
packages=(clang llvm-dev libclang-dev libelf-dev libdw-dev valgrind cmake
          pkg-config make python3 libjson-c-dev chromium
          csmith libcsmith-dev parallel)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
