package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The local jar's Hadoop defaults (the build strips their descriptions: target/hadoop-defaults/stripped, put in the jar in
 * place of Hadoop's) hold exactly Hadoop's properties: every name, value (whitespace-only values included) and final flag of
 * the file on the test class path, which is Hadoop's own.
 */
class StrippedDefaultsTest {

  @ParameterizedTest
  @ValueSource(strings = {"core-default.xml", "mapred-default.xml", "yarn-default.xml"})
  void theStrippedDefaultsAreHadoopsProperties(String name) throws Exception {
    File stripped = new File("target/hadoop-defaults/stripped/" + name);
    assertTrue(stripped.isFile(), stripped + " (made by the build's strip-hadoop-defaults step)");
    Configuration hadoop = new Configuration(false);
    hadoop.addResource(name); // from Hadoop's jar on the test class path
    Configuration ours = new Configuration(false);
    ours.addResource(new org.apache.hadoop.fs.Path(stripped.getAbsolutePath()));
    Map<String, String> want = new TreeMap<>();
    Map<String, String> got = new TreeMap<>();
    for (Map.Entry<String, String> e : hadoop) want.put(e.getKey(), e.getValue());
    for (Map.Entry<String, String> e : ours) got.put(e.getKey(), e.getValue());
    assertTrue(want.size() > 150, name + ": " + want.size() + " properties read from Hadoop's file");
    assertEquals(want, got, name);
    assertEquals(hadoop.getFinalParameters(), ours.getFinalParameters(), name);
    java.net.URL original = getClass().getClassLoader().getResource(name);
    assertTrue(original != null && original.toString().startsWith("jar:"), "Hadoop's own file: " + original);
    assertTrue(stripped.length() < 0.6 * original.openConnection().getContentLengthLong(), name + ": most of its bytes were descriptions");
  }
}
