#!/usr/bin/env bash
# Submits a soak study to Slurm: a job array of N agents (`soak run --agent auto`, one
# share of the load each, all starting on one wall-clock instant) and a job that runs
# after the whole array, whatever became of it (--dependency=afterany), and merges the
# agents' files into one run and writes the report.  See README.md beside this file.
#
#   deploy/slurm/submit.sh -n N -d SHARED_DIR [options] SCENARIO.ini... [-- SOAK_RUN_OPTIONS...]
#
#   -n N            agents (array tasks 1..N)
#   -d DIR          a folder every node sees (NFS, Lustre, ...): agents/, hosts/, logs/,
#                   study.db and report/ go there
#   -l SECONDS      lead time: the agents start this long after submission (default 120);
#                   longer than the array may wait in the queue, or late agents join late
#   -p PARTITION    sbatch --partition
#   -t TIME         sbatch --time of each agent (default 1-00:00:00)
#   -c CPUS         sbatch --cpus-per-task of each agent (default: all of a node's, with
#                   --exclusive: one agent per node, no two generators sharing a machine)
#   --shared-nodes  let agents share nodes (no --exclusive; small tests, single-node labs)
#   -b DIR          where the soak binaries are on the nodes (default: PATH)
# Other sbatch settings come from its own environment (SBATCH_ACCOUNT, SBATCH_QOS, ...).
# Prints the two job ids and the start time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
n='' dir='' lead=120 part='' tlimit=1-00:00:00 cpus='' exclusive=1 bin=''
usage() { sed -n '7,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    -l) lead=$2; shift 2 ;;
    -p) part=$2; shift 2 ;;
    -t) tlimit=$2; shift 2 ;;
    -c) cpus=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    --shared-nodes) exclusive=0; shift ;;
    -h|--help) usage ;;
    --) break ;;
    -*) echo "submit.sh: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
scenarios=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do scenarios+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift; done
[ "${1:-}" = -- ] && shift
extra=("$@")
case $n in ''|*[!0-9]*) echo "submit.sh: -n N (agents) is required" >&2; usage ;; esac
[ -n "$dir" ] || { echo "submit.sh: -d SHARED_DIR is required" >&2; usage; }
[ ${#scenarios[@]} -gt 0 ] || { echo "submit.sh: no scenario given" >&2; usage; }
case $lead in ''|*[!0-9]*) echo "submit.sh: -l SECONDS: a whole number" >&2; usage ;; esac

mkdir -p "$dir/agents" "$dir/hosts" "$dir/logs"
dir=$(cd "$dir" && pwd)
soak=${bin:+$bin/}soak
# Checked here, before anything is queued: a typo must not surface on 40 nodes.
"$soak" check "${scenarios[@]}" >/dev/null

start=$(( $(date +%s) + lead ))
opts=(--parsable --job-name=soak-agent --output="$dir/logs/agent-%a.out"
      --nodes=1 --ntasks=1 --time="$tlimit")
[ -n "$part" ] && opts+=(--partition="$part")
[ -n "$cpus" ] && opts+=(--cpus-per-task="$cpus")
[ "$exclusive" = 1 ] && opts+=(--exclusive)
export SOAK_DIR=$dir SOAK_START_AT=$start SOAK_BIN=$bin
array=$(sbatch "${opts[@]}" --array="1-$n" "$here/agent.sbatch" "${extra[@]}" "${scenarios[@]}")
array=${array%%;*}
mopts=(--parsable --job-name=soak-merge --output="$dir/logs/merge.out" --nodes=1 --ntasks=1
       --dependency="afterany:$array")
[ -n "$part" ] && mopts+=(--partition="$part")
merge=$(sbatch "${mopts[@]}" "$here/merge.sbatch")
merge=${merge%%;*}
echo "agents: job $array (array 1-$n, group slurm-$array), starting at $(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
echo "merge and report: job $merge (after the whole array)"
echo "results: $dir/study.db, $dir/report/report.html; logs: $dir/logs/"
