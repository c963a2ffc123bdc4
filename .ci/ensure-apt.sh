#!/usr/bin/env bash
# Install the Debian packages the project uses (.ci/apt-packages: chromium for browser tests, apertium for the
# Translate tool) when they are missing. Runs before `npm test` and `npm start`; a no-op once installed.
# Without root or apt it only warns: the browser tests and the Translate tool then report what is missing.
set -u
cd "$(dirname "$0")/.."
want=$(grep -v '^\s*#' .ci/apt-packages | sed '/^\s*$/d' | sort -u)
missing=()
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-apt: missing Debian packages: ${missing[*]} (install them with apt-get as root)" >&2
  exit 0
fi
echo "ensure-apt: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || echo "ensure-apt: apt-get install failed; continuing without ${missing[*]}" >&2
exit 0
