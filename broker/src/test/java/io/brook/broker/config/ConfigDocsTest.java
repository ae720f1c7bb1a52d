package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.GroupConfig;
import io.brook.broker.topics.TopicConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigDocsTest {
  private static final Path PAGE = Path.of("../docs/CONFIGURATION.md");

  @Test
  void theCommittedPageIsWhatTheCodeRenders() throws Exception {
    assertThat(Files.readString(PAGE))
        .as("docs/CONFIGURATION.md is stale: run bin/brook config --markdown > docs/CONFIGURATION.md")
        .isEqualTo(ConfigDocs.markdown());
  }

  @Test
  void everyBrokerKeyIsOnThePageWithItsEnvironmentVariable() {
    String page = ConfigDocs.markdown();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      assertThat(page).contains("| `" + k.name() + "` | `" + k.envName() + "` |");
    }
  }

  @Test
  void theExampleFileIsAValidConfig(@TempDir Path dir) throws Exception {
    String page = ConfigDocs.markdown();
    String example = page.substring(page.indexOf("```properties\n") + 14, page.lastIndexOf("```"));
    Path file = dir.resolve("brook.properties");
    Files.writeString(file, example);
    BrokerConfig config = BrokerConfig.resolve(file, Map.of(), Map.of());
    assertThat(config.get(BrokerKeys.GRPC_LISTEN).getPort()).isEqualTo(7070);
    assertThat(example.lines().filter(l -> !l.isBlank())).hasSize(BrokerKeys.ALL.size());
  }

  @Test
  void everyTopicAndGroupKeyIsDescribed() {
    assertThat(ConfigDocs.TOPIC_KEYS.keySet()).containsExactlyInAnyOrderElementsOf(TopicConfig.KEYS);
    assertThat(ConfigDocs.GROUP_KEYS.keySet()).containsExactlyInAnyOrderElementsOf(GroupConfig.KEYS);
  }
}
