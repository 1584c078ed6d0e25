/**
 * A local cluster of real processes: MariaDB servers started from the machine's {@code mariadbd},
 * each with its own datadir, port, socket and binlog, and one Kafka broker in KRaft combined mode
 * run as its own JVM. The demo, the operator CLI ({@code reshard cluster up|status|down}) and the
 * test fixture all use it.
 *
 * <p>Entry class: {@link io.reshard.cluster.LocalCluster}. What {@code up} writes to {@code
 * DIR/cluster.json} is {@link io.reshard.cluster.ClusterDescriptor}.
 */
package io.reshard.cluster;
