#!/usr/bin/env bash
# Detection power (issue 12): runs-to-first-violation of each cell the
# literature calls unsafe, and violations found on the cells it calls safe.
# Usage: .ci/detection.sh [LOCKSIM_BINARY]   (default: builds ./cmd/locksim)
# Prints a markdown table. Unsafe cells run seeds from 1 (default flags
# otherwise) until the first violation (--until-first) and report that
# seed when its run has a mutual-exclusion violation with the expected
# cause; otherwise they run all 1,000 seeds and report the first seed
# with that cause, and how many runs had it. Safe cells run 2,000 seeds
# and report the mutual-exclusion violations (want 0).
# SECTIONS=unsafe or SECTIONS=safe runs one half; CELLS=REGEX keeps the
# unsafe cells whose "protocol faults" matches.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then bin=$(mktemp -d)/locksim; go build -o "$bin" ./cmd/locksim; fi
single="fenced redislock-go redisson redisson-3.12.0 redisson-3.16.1 redisson-3.17.0 redisson-latest redisson-trylock setnx-daemon-renew setnx-del setnx-get-del setnx-lua-del setnx-watch-del spring-registry"
norenew="setnx-del setnx-get-del setnx-lua-del setnx-watch-del redislock-go redisson-trylock spring-registry redlock redlock-unchecked redisson-multilock"
# fenced renews its lease (Redisson's watchdog): slow-work cannot break it.
renew="redisson redisson-3.12.0 redisson-3.16.1 redisson-3.17.0 redisson-latest setnx-daemon-renew redlock-setnx-extend fenced"
# Locks that check a replica acknowledged the acquire (Redisson 3.17's
# synced check, its tryLock, the newer line, fenced): a failover alone
# promotes a replica that has the key; only a stale promotion (a
# partition that left the promotable replica behind) loses it.
synced="redisson-3.17.0 redisson-trylock redisson-latest fenced"
redlocks="redlock redlock-unchecked redlock-setnx-extend"
all=$("$bin" list | awk '/^protocols:/{p=1;next} /^[a-z]+:/{p=0} p{print $1}')

# cell PROTOCOL FAULTS CAUSE [extra flags...]
cell() {
  local p=$1 f=$2 cause=$3; shift 3
  local j first rate
  [[ "$p $f" =~ ${CELLS:-.} ]] || return 0
  j=$("$bin" explore --protocol "$p" --faults "$f" --runs 1000 --until-first --json "$@" 2>/dev/null || true)
  [ -n "$j" ] || j='{"causes":[]}'
  first=$(jq -r --arg c "$cause" '[.causes[] | select(.property=="mutual-exclusion" and .cause==$c) | .first_seed] | min // "none"' <<<"$j")
  rate="until first"
  if [ "$first" = none ]; then
    j=$("$bin" explore --protocol "$p" --faults "$f" --runs 1000 --json "$@" 2>/dev/null || true)
    if [ -z "$j" ]; then echo "| $p | $f $* | $cause | error | |"; return; fi
    first=$(jq -r --arg c "$cause" '[.causes[] | select(.property=="mutual-exclusion" and .cause==$c) | .first_seed] | min // "none"' <<<"$j")
    rate=$(jq -r --arg c "$cause" '([.causes[] | select(.property=="mutual-exclusion" and .cause==$c) | .runs] | add // 0)' <<<"$j")/1000
  fi
  echo "| $p | $f $* | $cause | $first | $rate |"
}
safe() {
  local p=$1 f=$2; shift 2
  local j v
  j=$("$bin" explore --protocol "$p" --faults "$f" --runs 2000 --json "$@" 2>/dev/null || true)
  if [ -z "$j" ]; then echo "| $p | $f $* | error |"; return; fi
  v=$(jq -r '[.causes[] | select(.property=="mutual-exclusion") | "\(.cause) x\(.runs) @\(.first_seed)"] | join(", ")' <<<"$j")
  echo "| $p | $f $* | ${v:-0} |"
}

if [ "${SECTIONS:-unsafe safe}" != safe ]; then
echo "## Unsafe cells: first violating seed (of 1..1000) with the expected cause"
echo
echo "| protocol | faults | cause | first seed | rate |"
echo "| --- | --- | --- | --- | --- |"
for p in $single; do
  if [[ " $synced " == *" $p "* ]]; then
    cell "$p" failover,partition lost-after-failover ${TOPO_FLAG:+--topology replicated}
  else
    cell "$p" failover lost-after-failover ${TOPO_FLAG:+--topology replicated}
  fi
  cell "$p" partition lost-after-failover ${TOPO_FLAG:+--topology replicated}
  cell "$p" node-restart restart-without-persistence
done
for p in $norenew; do
  cell "$p" gc-pause premature-expiry
  cell "$p" slow-work premature-expiry
done
for p in $renew; do cell "$p" gc-pause premature-expiry; done
# A stalled watchdog loses the lease of a hold longer than it
# (redisson#5698): unsafe for every lock that renews in the background.
for p in $renew setnx-px-lua-refresh; do cell "$p" watchdog-stall premature-expiry; done
for p in $redlocks; do
  cell "$p" clock-jump clock-jump
  cell "$p" node-restart restart-without-persistence
done
# unique-name re-checks the row before locking, so after the paused
# client inserted and deleted the next owner's key nobody locks that name
# again: the foreign release shows on the workloads that keep going.
cell setnx-del gc-pause foreign-release --workload stock
fi
if [ "${SECTIONS:-unsafe safe}" != unsafe ]; then
echo
echo "## Safe cells: mutual-exclusion violations in 2,000 runs (want 0)"
echo
echo "| protocol | faults | violations |"
echo "| --- | --- | --- |"
for p in $all; do [ "$p" = local-mutex ] || safe "$p" none; done
for p in $renew; do
  for f in slow-work reply-loss client-crash replication-lag; do safe "$p" "$f"; done
done
fi
