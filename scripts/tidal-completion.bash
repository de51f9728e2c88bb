# bash completion for tidal (installed as share/bash-completion/completions/tidal).
# Options come from the tool's own `tidal CMD --help`, so they never drift
# from what each command accepts.
_tidal() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local tool=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]} w
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "graph rewrite replay fit kernels report --help --version" -- "$cur"))
    return
  fi
  for w in "${COMP_WORDS[@]:2:COMP_CWORD-2}"; do # after "--": clang's flags and files
    if [ "$w" = "--" ]; then
      COMPREPLY=($(compgen -f -- "$cur"))
      return
    fi
  done
  case $prev in
    --format) COMPREPLY=($(compgen -W "text json dot" -- "$cur")); return ;;
    --plan) COMPREPLY=($(compgen -W "auto swap recompute none" -- "$cur")); return ;;
    --runtime-planner) COMPREPLY=($(compgen -W "runtime hints lru" -- "$cur")); return ;;
    -p) COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur")); return ;;
    -o|--trace|--timeline|--profile) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --budget|--bind|--loop|--iteration|--title|--cost|--iterations|--chunk|--max-ops|--vary|--max-overhead) return ;;
  esac
  if [[ $cur == -* ]]; then
    local opts
    opts=$("$tool" "$cmd" --help 2>/dev/null |
           sed -n -e 's/^  -h, \(--help\).*/\1/p' -e 's/^  \(-[^ ,=]*\).*/\1/p')
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  if [ "$cmd" = report ]; then
    COMPREPLY=($(compgen -f -X '!*.json' -- "$cur"))
  else
    COMPREPLY=($(compgen -f -X '!*.@(cu|cuh|cpp|cc|cxx|h|hpp)' -- "$cur"))
  fi
}
shopt -s extglob
complete -o filenames -o bashdefault -F _tidal tidal
