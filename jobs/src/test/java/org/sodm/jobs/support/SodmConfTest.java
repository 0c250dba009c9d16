package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class SodmConfTest {
  @Test
  void streamBufferIsRaisedOnlyOverHadoopsOwnDefault() {
    Configuration plain = new Configuration();
    assertEquals(4096, plain.getInt(SodmConf.IO_BUFFER, 0), "core-default.xml's value");
    assertEquals(SodmConf.IO_BUFFER_BYTES, SodmConf.create().getInt(SodmConf.IO_BUFFER, 0));

    Configuration site = new Configuration();
    String xml = "<configuration><property><name>" + SodmConf.IO_BUFFER + "</name><value>65536</value></property></configuration>";
    site.addResource(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "site.xml");
    assertEquals(65536, SodmConf.withStreamBuffer(site).getInt(SodmConf.IO_BUFFER, 0), "a site file's value is kept");

    Configuration set = new Configuration();
    set.setInt(SodmConf.IO_BUFFER, 8192);
    assertEquals(8192, SodmConf.withStreamBuffer(set).getInt(SodmConf.IO_BUFFER, 0), "a value set before is kept");
  }
}
