package org.sodm.jobs.support;

/** A user-facing failure: its message is printed as is (it names the file, line or parameter). */
public class SodmException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SodmException(String message) {
    super(message);
  }

  public SodmException(String message, Throwable cause) {
    super(message, cause);
  }
}
