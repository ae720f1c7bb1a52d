package io.brook.client.cyclefixture.right;

import io.brook.client.cyclefixture.left.Left;

/** With Left, two packages that use each other. */
public class Right {
  Left left;
}
