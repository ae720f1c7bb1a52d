package io.brook.client.internal.channel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerTokenTest {
  @Test
  void plaintextTokensGoToLoopbackOnly() {
    assertThat(BearerToken.loopback("localhost:7070")).isTrue();
    assertThat(BearerToken.loopback("127.0.0.1:7070")).isTrue();
    assertThat(BearerToken.loopback("[::1]:7070")).isTrue();
    assertThat(BearerToken.loopback("broker.example.com:7070")).isFalse();
    assertThat(BearerToken.loopback("10.0.0.1:7070")).isFalse();
    assertThat(BearerToken.loopback("localhost.evil.com:7070")).isFalse();
    // names are never resolved: only localhost and literal loopback addresses count
    assertThat(BearerToken.loopback("127.attacker.example:1")).isFalse();
    assertThat(BearerToken.loopback("127.0.0.1.attacker.example:1")).isFalse();
    assertThat(BearerToken.loopback("127.1:1")).isFalse();
    assertThat(BearerToken.loopback("127.0.0.256:1")).isFalse();
    assertThat(BearerToken.loopback("127.0.0.1")).isTrue();
    assertThat(BearerToken.loopback("127.255.3.4:1")).isTrue();
    assertThat(BearerToken.loopback("localhost")).isTrue();
    assertThat(BearerToken.loopback("[::1]")).isTrue();
    assertThat(BearerToken.loopback("::1")).isTrue();
    assertThat(BearerToken.loopback("[::2]:1")).isFalse();
  }
}
