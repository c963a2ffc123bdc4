#!/usr/bin/env bash
# Install the Debian packages the project uses (.ci/apt-packages: chromium for browser tests, apertium for the
# Translate tool) when they are missing. Runs before `npm test` and `npm start`; a no-op once installed.
# Without root or apt it only warns: the browser tests and the Translate tool then report what is missing.
# Another apt or dpkg holding its lock (an unattended upgrade, a second install) is waited for, up to
# APT_LOCK_WAIT seconds (default 300) — apt's own DPkg::Lock::Timeout — instead of failing at once. apt's and
# debconf's chatter goes to a log, shown only when the install fails.
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
export DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes
wait_lock=(-o "DPkg::Lock::Timeout=${APT_LOCK_WAIT:-300}")
log=$(mktemp)
if ! { apt-get "${wait_lock[@]}" update -qq && apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "ensure-apt: apt-get install failed; continuing without ${missing[*]}" >&2
fi
rm -f "$log"
exit 0
