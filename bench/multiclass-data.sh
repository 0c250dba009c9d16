# Sourced by bench/multiclass.sh and bench/multinomial.sh: the two multi-class sets as both benches use them.
# multiclass_sets DATASETS OUT: pendigits (both files scaled to [0,1] with the training ranges, svm-scale) and dna (already
# scaled) decompressed into OUT/NAME and OUT/NAME.t.
multiclass_sets() {
  local datasets="$1" out="$2"
  xz -dc "$datasets/pendigits/pendigits.xz" > "$out/pendigits.raw"
  xz -dc "$datasets/pendigits/pendigits.t.xz" > "$out/pendigits.t.raw"
  svm-scale -l 0 -u 1 -s "$out/pendigits.range" "$out/pendigits.raw" > "$out/pendigits"
  svm-scale -r "$out/pendigits.range" "$out/pendigits.t.raw" > "$out/pendigits.t"
  xz -dc "$datasets/dna/dna.scale.xz" > "$out/dna"
  xz -dc "$datasets/dna/dna.scale.t.xz" > "$out/dna.t"
}
