package org.sodm.jobs.support;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The project version, from the build (version.properties, filtered by Maven). */
public final class Version {
  private Version() {}

  public static String get() {
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
