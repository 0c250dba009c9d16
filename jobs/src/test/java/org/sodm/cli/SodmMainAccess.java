package org.sodm.cli;

/** For tests in other packages: runs a sodm command line, returns {exit code, stdout, stderr}. */
public final class SodmMainAccess {
  private SodmMainAccess() {}

  public static String[] run(String... args) throws Exception {
    return SodmMainTest.run(args);
  }
}
