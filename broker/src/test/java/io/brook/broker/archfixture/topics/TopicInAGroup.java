package io.brook.broker.archfixture.topics;

import io.brook.broker.archfixture.groups.GroupOfTopics;

/** With GroupOfTopics, breaks noPackageCycles: topics and groups depend on each other. */
public class TopicInAGroup {
  GroupOfTopics group;
}
