#!/bin/sh
# Builds a filter list for publishing (docs/ci-recipe.md): downloads through flc's HTTP cache, falls
# back to a source's last good copy when it is down, refuses a list that shrank too much, writes
# the differential-update patches and a summary of what changed. Run it from the folder of the
# configuration; every setting below can be overridden from the environment.
set -eu

FLC=${FLC:-"npx --no-install flc"}
CONFIG=${FLC_CONFIG:-flc.config.json}
PUBLIC=${PUBLIC_DIR:-public}
LIST=${LIST_NAME:-list.txt}
# The download cache (kept between runs by the CI's cache): the last good copy of each source.
export FLC_CACHE_DIR="${FLC_CACHE_DIR:-.flc-cache}"

mkdir -p "$PUBLIC"
# Patch names carry the time in DIFF_RESOLUTION units (h, m or s): a list can change once per unit;
# clients ask for the next patch DIFF_EXPIRY units after they got a version.
# Exit 1, writing nothing, when the list would lose more than MAX_SHRINK percent of its rules
# (a source that answered an empty page), or when a source is down with no copy younger than MAX_STALE.
# shellcheck disable=SC2086 # FLC may be a command with arguments.
$FLC compile -c "$CONFIG" -o "$PUBLIC/$LIST" \
  --on-source-error stale --max-stale "${MAX_STALE:-3d}" \
  --max-shrink "${MAX_SHRINK:-20}" \
  --diff-patches "$PUBLIC/patches" --diff-resolution "${DIFF_RESOLUTION:-h}" \
  --diff-expiry "${DIFF_EXPIRY:-1}" --diff-keep "${DIFF_KEEP:-7d}" \
  --report "$PUBLIC/report.json" \
  --quiet
echo "flc: $PUBLIC/$LIST is ready to publish"
