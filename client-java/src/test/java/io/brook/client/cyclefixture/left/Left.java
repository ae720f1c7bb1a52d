package io.brook.client.cyclefixture.left;

import io.brook.client.cyclefixture.right.Right;

/** With Right, two packages that use each other: PackageCyclesTest's rule must report them. */
public class Left {
  Right right;
}
