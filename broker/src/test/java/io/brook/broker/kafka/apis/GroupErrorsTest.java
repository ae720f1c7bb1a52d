package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** How the group APIs answer a refusal. */
class GroupErrorsTest {
  @Test
  void everyMemberFaultIsTheKafkaErrorOfItsName() {
    for (MemberFault f : MemberFault.values()) {
      KafkaErrors.Failure failure = GroupErrors.of(new MemberFaultException(f, "why " + f));
      assertThat(failure.error().name()).isEqualTo(f.name());
      assertThat(failure.message()).isEqualTo("why " + f);
    }
  }

  @Test
  void aFullDiskIsRetriableAndAnotherPrincipalsMemberIsAGroupRefusal() {
    for (BrokerError e : new BrokerError[] {BrokerError.NOT_ENOUGH_DISK, BrokerError.STORAGE_ERROR}) {
      assertThat(GroupErrors.of(new BrokerException(e, "full")).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    }
    assertThat(Errors.COORDINATOR_NOT_AVAILABLE.exception()).isInstanceOf(
        org.apache.kafka.common.errors.RetriableException.class);
    assertThat(GroupErrors.of(new BrokerException(BrokerError.NOT_OWNER, "not yours")).error())
        .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED);
    assertThat(GroupErrors.of(new BrokerException(BrokerError.GROUP_NOT_EMPTY, "busy")).error())
        .isEqualTo(Errors.NON_EMPTY_GROUP);
  }
}
