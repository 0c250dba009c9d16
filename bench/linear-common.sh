# Sourced by bench/linear-speed.sh and bench/linear-grid.sh (set NAME and TRAIN first): checks that liblinear-train is
# installed, sets root (the checkout) and work ($BENCH_DIR/NAME, created), unpacks TRAIN into $work/train once, and defines
#   unpack FILE     FILE's text (.xz, .bz2, .gz or plain) on stdout
#   tm LOG CMD...   runs CMD with its output into LOG; prints "wall<TAB>cpu" (user + sys) seconds
command -v liblinear-train >/dev/null || { echo "liblinear-train not installed (apt-get install -y liblinear-tools)" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${BENCH_DIR:-/tmp/sodm-linear-bench}/$name
mkdir -p "$work"
unpack() { case "$1" in *.xz) xz -dc "$1" ;; *.bz2) bzip2 -dc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; }
tm() { local log=$1; shift; /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > "$log" 2>&1; awk '{printf "%s\t%.2f", $1, $2 + $3}' "$work/time"; }
[ -s "$work/train" ] || unpack "$train" > "$work/train"
