package org.sodm.data;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Registers sodm's generated Avro classes as trusted (Avro 1.12 refuses to (de)serialise
 * classes it does not trust). Call {@link #trust()} in every JVM that reads or writes them:
 * drivers, mappers and reducers (their setup), tests.
 */
public final class AvroClasses {
  private static volatile boolean done;

  private AvroClasses() {}

  public static void trust() {
    if (done) return;
    synchronized (AvroClasses.class) {
      if (done) return;
      ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(
          ClassSecurityValidator.getGlobal(),
          c -> c.getName().startsWith("org.sodm.")));
      done = true;
    }
  }
}
