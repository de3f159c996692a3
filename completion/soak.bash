# bash completion for soak, soak-procstat, soak-gclog, soak-perf and soak-regserver  -*- shell-script -*-
# Installed as BASHCOMPDIR/soak (with links for the other four names), where
# bash-completion loads it the first time one of them is completed.
#
# Nothing here lists options: they are read from the programs' own --help (cached per
# program and command), so completion cannot fall behind them.  An option is one of a
# program's own when --help prints it in its usage lines (`usage:` and the indented lines
# after it), or first on a line (after blanks and `[`), after two blanks, `: ` or `] [`, or
# right after another option: the rule tests/it/man_check.py holds the man pages to.  The
# word after an option's first appearance says what it takes: none (a flag), choices
# (`auto|curl|lean`), a file (FILE, DB, F), a folder (DIR), run ids (RUN_ID, ID),
# or anything else (no completion).  Run ids and labels come from `soak runs --json` of
# the database the line names (--db, a DB argument of soak report, profile or history),
# $SOAK_DB or soak.db.  `soak --file-mode MODE COMMAND ...` is completed as `soak COMMAND
# ...` once MODE is given.

# _soak_help PROGRAM [COMMAND]: prints "OPTION METAVAR" lines (METAVAR "-" for a flag), the
# program's own options, from its --help; cached in _soak_cache.
declare -gA _soak_cache=()
_soak_help() {
  local key="$*" text line usage=0 before rest opt prev_end meta own out=""
  local re='(^|[^[:alnum:]_-])(--[a-z][a-z0-9-]*|-[A-Za-z])($|[^[:alnum:]_])'
  # An option's metavar: one blank, then a word that is no option, no bracket, no comment;
  # a short option's is its long twin's (`-c, --concurrency N`).
  local word='([^][:space:]()[-][^][:space:]()]*)'
  local meta_re="^ $word" twin_re="^, --[a-z][a-z0-9-]* $word"
  local own_re='(  |: |\] )\[?$' lead_re='^[[:space:]]*\[?$'
  if [[ -v _soak_cache[$key] ]]; then
    printf '%s' "${_soak_cache[$key]}"
    return
  fi
  text=$("$@" --help 2>&1) || true
  local -A seen=()
  while IFS= read -r line; do
    if [[ $line == usage:* ]]; then
      usage=1
    elif [[ $usage == 1 && $line != [[:space:]]* ]]; then
      usage=0
    fi
    rest=$line before="" prev_end=""
    while [[ $rest =~ $re ]]; do
      opt=${BASH_REMATCH[2]}
      # before: the line up to the option; rest: what follows it
      before+=${rest%%"${BASH_REMATCH[0]}"*}${BASH_REMATCH[1]}
      rest=${rest#*"${BASH_REMATCH[1]}$opt"}
      own=0
      if [[ $usage == 1 || $before =~ $lead_re || $before =~ $own_re ]]; then
        own=1
      elif [[ -n $prev_end && ($before == "$prev_end " || $before == "$prev_end, ") ]]; then
        own=1
      fi
      before+=$opt
      prev_end=$before
      if [[ $own == 1 && -z ${seen[$opt]-} ]]; then
        seen[$opt]=1
        meta=-
        if [[ $rest =~ $meta_re || $rest =~ $twin_re ]]; then
          meta=${BASH_REMATCH[1]}
        fi
        out+="$opt $meta"$'\n'
      fi
    done
  done <<<"$text"
  _soak_cache[$key]=$out
  printf '%s' "$out"
}

# _soak_db WORDS...: the databases the command line names (--db FILE, and for report and
# profile and history the DB arguments), else $SOAK_DB, else soak.db.
_soak_db() {
  local i dbs=()
  for ((i = 2; i < ${#words[@]}; i++)); do
    ((i == cword)) && continue
    case ${words[i]} in
      --db) ((i + 1 != cword)) && dbs+=("${words[i + 1]}") ;;
      --db=*) dbs+=("${words[i]#--db=}") ;;
      *.db) [[ ${words[1]} == @(report|profile|history) && ${words[i - 1]} != -* ]] && dbs+=("${words[i]}") ;;
    esac
  done
  ((${#dbs[@]})) || dbs=("${SOAK_DB:-soak.db}")
  printf '%s\n' "${dbs[@]}"
}

# _soak_runs FIELD [not-done]: the run ids (FIELD id) or labels (FIELD label) of the
# databases the line names; several databases give K:ID.  Never creates a database.
_soak_runs() {
  local field=$1 filter=${2-} db k=0 line id label status
  local run_re='"id": ([0-9]+), "label": "(([^"\\]|\\.)*)"' status_re='"status": "([a-z]*)"'
  local -a dbs
  mapfile -t dbs < <(_soak_db)
  for db in "${dbs[@]}"; do
    k=$((k + 1))
    db=${db/#\~/$HOME}
    [[ -f $db ]] || continue
    while IFS= read -r line; do
      [[ $line =~ $run_re ]] || continue
      id=${BASH_REMATCH[1]} label=${BASH_REMATCH[2]}
      [[ $line =~ $status_re ]] && status=${BASH_REMATCH[1]} || status=
      [[ $filter == not-done && $status == done ]] && continue
      if [[ $field == label ]]; then
        printf '%s\n' "$label"
      elif ((${#dbs[@]} > 1)); then
        printf '%s\n' "$k:$id"
      else
        printf '%s\n' "$id"
      fi
    done < <("${words[0]}" runs --db "$db" --json 2>/dev/null)
  done
}

# _soak_sets: SECTION.KEY= of the scenario files on the line (for --set).
_soak_sets() {
  local w
  for w in "${words[@]:2}"; do
    [[ $w == *.ini && -f $w ]] || continue
    awk '/^[[:space:]]*\[/ { s = $0; gsub(/^[[:space:]]*\[|\].*$/, "", s); next }
         s != "" && /^[[:space:]]*[A-Za-z_]+[[:space:]]*=/ {
           k = $0; sub(/^[[:space:]]*/, "", k); sub(/[[:space:]]*=.*$/, "", k)
           print s "." k "=" }' "$w"
  done
}

_soak() {
  local cur prev words cword split
  _init_completion -s -n : || return
  # A cursor between two blanks mid-line gives a blank word: complete it as an empty one.
  [[ $cur == *[![:space:]]* ]] || cur=

  local prog=${words[0]##*/} cmd="" help i
  local -a argv=("${words[0]}")
  if [[ $prog == soak ]]; then
    # soak --file-mode MODE COMMAND ...: the mode, then the rest as if it were not there.
    local fm=0
    if [[ ${words[1]-} == --file-mode=* ]]; then
      fm=1
    elif [[ ${words[1]-} == --file-mode ]]; then
      fm=2
    fi
    if ((fm == 2 && cword == 2)) || ((fm == 1 && cword == 1)); then
      COMPREPLY=($(compgen -W '0600 0640 0644 0660 0664 0666' -- "$cur"))
      return
    fi
    if ((fm && cword > fm)); then
      words=("${words[0]}" "${words[@]:fm+1}")
      cword=$((cword - fm))
      prev=${words[cword - 1]}
    fi
    if ((cword == 1)); then
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '--file-mode --help --version' -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$("${words[0]}" --help 2>/dev/null |
          awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }')" -- "$cur"))
      fi
      return
    fi
    cmd=${words[1]}
    argv+=("$cmd")
  fi
  help=$(_soak_help "${argv[@]}")

  # The value of an option: what its metavar says.
  local opt=$prev meta
  meta=$(awk -v o="$opt" '$1 == o { print $2; exit }' <<<"$help")
  if [[ $opt == -* && -n $meta && $meta != - ]]; then
    case $opt in
      --set)
        compopt -o nospace 2>/dev/null
        COMPREPLY=($(compgen -W "$(_soak_sets)" -- "$cur"))
        return ;;
      --label | --against)
        if [[ $cmd == @(report|profile|history) ]]; then
          local IFS=$'\n'
          COMPREPLY=($(compgen -W "$(_soak_runs label | sort -u)" -- "$cur"))
        fi
        return ;;
      --resume)
        [[ $meta == RUN_ID ]] && COMPREPLY=($(compgen -W "$(_soak_runs id not-done)" -- "$cur"))
        return ;;
      --runs)
        if [[ $cmd == @(report|profile) ]]; then
          # A comma-separated list: complete its last element.
          local head=${cur%"${cur##*,}"}
          COMPREPLY=($(compgen -P "$head" -W "$(_soak_runs id)" -- "${cur##*,}"))
          compopt -o nospace 2>/dev/null
        fi
        return ;;
    esac
    [[ $opt == --db ]] && meta=DB
    case $meta in
      *\|*)
        local choices=${meta//|/ } c words_ok=""
        for c in $choices; do [[ $c =~ ^[a-z][a-z0-9-]*$ ]] && words_ok+=" $c"; done
        COMPREPLY=($(compgen -W "$words_ok" -- "$cur")) ;;
      DIR) _filedir -d ;;
      DB|OUT.db) _filedir db ;;
      FILE|FILE...|F|FILE.jtl|FILE.nmon) _filedir ;;
      RUN_ID) COMPREPLY=($(compgen -W "$(_soak_runs id)" -- "$cur")) ;;
    esac
    return
  fi
  $split && return

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(awk '{ print $1 }' <<<"$help")" -- "$cur"))
    return
  fi

  # Arguments.
  case $prog:$cmd in
    soak:run | soak:check | soak:calibrate | soak:study) _filedir ini ;;
    soak:report | soak:profile | soak:merge | soak:history) _filedir db ;;
    soak:hlog) _filedir hlog ;;
    soak:import)
      local sub="" n=0
      for ((i = 2; i < cword; i++)); do
        [[ ${words[i]} == -* ]] && continue
        [[ ${words[i - 1]} == -* ]] && [[ $(awk -v o="${words[i - 1]}" '$1 == o { print $2 }' <<<"$help") != - ]] && continue
        n=$((n + 1))
        ((n == 1)) && sub=${words[i]}
      done
      if ((n == 0)); then
        COMPREPLY=($(compgen -W 'jmeter nmon' -- "$cur"))
      elif [[ $sub == jmeter ]]; then
        _filedir '@(jtl|csv|xml|gz)'
      else
        _filedir nmon
      fi ;;
    soak-gclog:*) _filedir ;;
  esac
} &&
  complete -F _soak soak soak-procstat soak-gclog soak-perf soak-regserver

# ex: filetype=sh
