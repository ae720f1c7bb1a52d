package io.brook.broker.archfixture.groups;

import io.brook.broker.archfixture.topics.TopicInAGroup;

/** With TopicInAGroup, breaks noPackageCycles. */
public class GroupOfTopics {
  TopicInAGroup topic;
}
