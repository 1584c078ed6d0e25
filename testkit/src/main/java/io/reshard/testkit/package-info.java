/**
 * Test support: {@link io.reshard.testkit.LocalClusterExtension} starts one local cluster of real
 * MariaDB servers and a real Kafka broker per test run and hands each test class a {@link
 * io.reshard.testkit.TestCluster} with databases and a topic prefix of its own.
 */
package io.reshard.testkit;
