package org.sodm.jobs.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionInputStream;
import org.apache.hadoop.io.compress.CompressionOutputStream;
import org.apache.hadoop.io.compress.Compressor;
import org.apache.hadoop.io.compress.Decompressor;
import org.tukaani.xz.XZInputStream;

/**
 * Read-only .xz codec (Hadoop has none), so ingest reads the .xz files LIBSVM data sets often
 * come in. Registered in {@code io.compression.codecs} by the ingest job. Not splittable.
 */
public class XzCodec implements CompressionCodec {

  @Override
  public CompressionInputStream createInputStream(InputStream in) throws IOException {
    XZInputStream xz = new XZInputStream(in);
    return new CompressionInputStream(in) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return xz.read(b, off, len);
      }

      @Override
      public int read() throws IOException {
        return xz.read();
      }

      @Override
      public void resetState() {
        throw new UnsupportedOperationException("xz streams cannot be reset");
      }

      @Override
      public void close() throws IOException {
        xz.close();
      }
    };
  }

  @Override
  public CompressionInputStream createInputStream(InputStream in, Decompressor d) throws IOException {
    return createInputStream(in);
  }

  @Override
  public CompressionOutputStream createOutputStream(OutputStream out) {
    throw new UnsupportedOperationException("sodm reads .xz but does not write it");
  }

  @Override
  public CompressionOutputStream createOutputStream(OutputStream out, Compressor c) {
    return createOutputStream(out);
  }

  @Override
  public Class<? extends Compressor> getCompressorType() {
    return null;
  }

  @Override
  public Compressor createCompressor() {
    return null;
  }

  @Override
  public Class<? extends Decompressor> getDecompressorType() {
    return null;
  }

  @Override
  public Decompressor createDecompressor() {
    return null;
  }

  @Override
  public String getDefaultExtension() {
    return ".xz";
  }
}
