package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The java.nio permissions agree with Hadoop's own (chmod / ls -ld) local file system. */
class NioLocalFileSystemTest {
  @TempDir java.nio.file.Path tmp;

  @Test
  void modeConversionMatchesTheSymbolicForm() {
    for (short mode = 0; mode < 01000; mode++) {
      String sym = new FsPermission(mode).toString(); // e.g. rwxr-x---, computed by Hadoop
      assertEquals(PosixFilePermissions.fromString(sym), NioLocalFileSystem.toPosix(mode), sym);
      assertEquals(mode, NioLocalFileSystem.fromPosix(PosixFilePermissions.fromString(sym)), sym);
    }
  }

  @Test
  void sodmDefaultsSelectIt() throws Exception {
    SodmConf.init();
    Configuration conf = new Configuration();
    assertEquals(NioLocalFileSystem.class, FileSystem.getFileSystemClass("file", conf));
  }

  @Test
  void permissionsWrittenAndReadAgreeWithHadoopsLocalFileSystem() throws Exception {
    Configuration conf = new Configuration(false);
    NioLocalFileSystem nio = new NioLocalFileSystem();
    nio.initialize(java.net.URI.create("file:///"), conf);
    LocalFileSystem hadoop = new LocalFileSystem();
    hadoop.initialize(java.net.URI.create("file:///"), conf);
    Path dir = new Path(tmp.toUri().toString(), "d");
    assertTrue(nio.mkdirs(dir, new FsPermission((short) 0750)));
    Path file = new Path(dir, "f.bin");
    try (OutputStream out = nio.create(file, new FsPermission((short) 0640), true, 4096, (short) 1, 1 << 20, null)) {
      out.write(new byte[] {1, 2, 3});
    }
    for (short mode : new short[] {0600, 0644, 0700, 0755, 0640}) {
      nio.setPermission(file, new FsPermission(mode));
      assertEquals(new FsPermission(mode).toString(),
          PosixFilePermissions.toString(Files.getPosixFilePermissions(java.nio.file.Path.of(file.toUri()))));
      FileStatus a = nio.getFileStatus(file);
      FileStatus b = hadoop.getFileStatus(file); // ls -ld
      assertEquals(b.getPermission(), a.getPermission());
      assertEquals(b.getOwner(), a.getOwner());
      assertEquals(b.getGroup(), a.getGroup());
      assertEquals(b.getLen(), a.getLen());
    }
    FileStatus[] listed = nio.listStatus(dir);
    FileStatus[] reference = hadoop.listStatus(dir);
    assertEquals(reference.length, listed.length); // the file and its .crc are hidden the same way
    for (int i = 0; i < listed.length; i++) {
      assertEquals(reference[i].getPath(), listed[i].getPath());
      assertEquals(reference[i].getPermission(), listed[i].getPermission());
    }
    assertEquals(hadoop.getFileStatus(dir).getPermission(), nio.getFileStatus(dir).getPermission());
    assertEquals(new FsPermission((short) 0750), nio.getFileStatus(dir).getPermission());
  }
}
