package org.sodm.data;

/**
 * A malformed input record. The message says what is wrong; {@link #offending()} is the
 * offending token or text. Callers add the file and line.
 */
public final class RecordException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String offending;

  public RecordException(String message, String offending) {
    super(message);
    this.offending = offending;
  }

  public String offending() {
    return offending;
  }

  /** {@code file:line: message (offending text: '...')}, the form every error uses. */
  public String describe(String file, long line) {
    return file + ":" + line + ": " + getMessage() + " (offending text: '" + abbreviate(offending, 200) + "')";
  }

  static String abbreviate(String s, int max) {
    if (s == null) return "";
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }
}
