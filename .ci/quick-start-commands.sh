#!/usr/bin/env bash
# Prints the commands of the first fenced block under "## Quick start" in the given README, one per line, without
# their trailing "# comments" (a '#' preceded by whitespace) or blank lines.
set -euo pipefail
awk '
  /^## / { in_section = ($0 ~ /^## Quick start/) ; next }
  in_section && !in_block && /^```/ { in_block = 1; next }
  in_block && /^```/ { exit }
  in_block { print }
' "$1" | sed -E 's/[[:space:]]+#.*$//; s/[[:space:]]+$//' | sed '/^$/d'
