package org.sodm.jobs.spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code conf/sodm-default.xml} written from the {@link Param} table: every key with its default
 * and description, grouped. A test holds the committed file equal to {@link #render()}; after a
 * change to the table, regenerate it with
 * {@code java -cp jobs/target/classes:common/target/classes org.sodm.jobs.spec.DefaultsXml conf/sodm-default.xml}.
 */
public final class DefaultsXml {
  private DefaultsXml() {}

  /** The file's text. */
  public static String render() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n<!--\n")
        .append("  Every sodm parameter with its default and a one-line description, generated from the parameter\n")
        .append("  table (org.sodm.jobs.spec.Param; do not edit by hand, see DefaultsXml).\n")
        .append("  Loaded as a Hadoop default resource by every sodm command; override with -D key=value,\n")
        .append("  -conf FILE, or the command-line option named in each description.\n-->\n<configuration>\n");
    Param.Group group = null;
    for (Param p : Param.values()) {
      if (p.group() != group) {
        group = p.group();
        sb.append("\n  <!-- ").append(group.name().toLowerCase(java.util.Locale.ROOT)).append(" -->\n");
      }
      sb.append("  <property>\n    <name>").append(p.key()).append("</name>\n    <value>").append(escape(p.defaultValue()))
          .append("</value>\n    <description>").append(escape(p.xmlDescription())).append("</description>\n  </property>\n");
    }
    return sb.append("\n</configuration>\n").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: DefaultsXml FILE");
      System.exit(2);
    }
    Files.writeString(Path.of(args[0]), render(), StandardCharsets.UTF_8);
  }
}
