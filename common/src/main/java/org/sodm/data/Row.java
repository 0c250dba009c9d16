package org.sodm.data;

/** One parsed input row: canonical label text (null when unlabelled) and features. */
public record Row(String label, SparseVector features) {}
