package org.sodm.jobs.spec;

/** A parameter value that its validator refuses; the message names the option, the key, the rule and the value. */
public final class BadParameterException extends IllegalArgumentException {
  public BadParameterException(String message) {
    super(message);
  }
}
