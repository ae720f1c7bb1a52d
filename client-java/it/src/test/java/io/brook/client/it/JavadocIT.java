package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The client's javadoc jar, as its build published it (client-java's package, before this module):
 * the public packages are there, the internal package is not, and no page links into it.
 */
class JavadocIT {
  @Test
  void theJavadocJarDocumentsThePublicPackagesAndLeavesInternalOut() throws IOException {
    String property = System.getProperty("brook.client.javadoc");
    assertThat(property).as("brook.client.javadoc, set by this module's pom").isNotNull();
    Path jar = Path.of(property);
    assertThat(jar).as("client-java's package makes the javadoc jar").exists();
    List<String> names = new ArrayList<>();
    List<String> pagesNamingInternal = new ArrayList<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        names.add(entry.getName());
        if (entry.getName().endsWith(".html")) {
          try (InputStream in = zip.getInputStream(entry)) {
            if (new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("io.brook.client.internal")) {
              pagesNamingInternal.add(entry.getName());
            }
          }
        }
      }
    }
    assertThat(names).contains("io/brook/client/producer/BrookProducer.html", "io/brook/client/consumer/BrookConsumer.html",
        "io/brook/client/ack/AckConsumer.html", "io/brook/client/admin/BrookAdmin.html",
        "io/brook/client/errors/BrookException.html");
    assertThat(names).noneMatch(n -> n.startsWith("io/brook/client/internal/"));
    assertThat(pagesNamingInternal).as("pages that name the internal package").isEmpty();
  }
}
