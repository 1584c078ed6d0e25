package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.KeyspaceTopicFormException;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A keyspace stream refuses to write one form into a topic that holds the other, on a real broker:
 * the newest records of every partition tell the form, an empty topic or a tombstone tells none.
 */
@ExtendWith(LocalClusterExtension.class)
class TopicFormIT {
  @Test
  void aTopicOfOneFormRefusesTheOtherAndAnEmptyOneTakesEither(TestCluster cluster)
      throws Exception {
    String prefix = cluster.topicPrefix() + ".form";
    KeyspaceStreamConfig envelope = config(cluster, prefix, KeyspaceStreamConfig.Format.ENVELOPE);
    KeyspaceStreamConfig connect =
        config(cluster, prefix, KeyspaceStreamConfig.Format.CONNECT_JSON);
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
      admin.createTopics(List.of(new NewTopic(envelope.topic(), 3, (short) 1))).all().get();
    }
    assertEquals(Optional.empty(), TopicForm.held(cluster.bootstrap(), envelope.topic(), 3));
    TopicForm.requireSame(connect, 3); // an empty topic takes either form

    send(cluster, envelope.topic(), 0, "{\"before\": null, \"after\": {\"id\": 1}, \"op\": \"c\"}");
    send(cluster, envelope.topic(), 2, null); // a tombstone tells nothing
    assertEquals(
        Optional.of(KeyspaceStreamConfig.Format.ENVELOPE),
        TopicForm.held(cluster.bootstrap(), envelope.topic(), 3));
    TopicForm.requireSame(envelope, 3);
    KeyspaceTopicFormException e =
        assertThrows(KeyspaceTopicFormException.class, () -> TopicForm.requireSame(connect, 3));
    assertEquals(
        "keyspace stream of ks: topic "
            + envelope.topic()
            + " holds records in the envelope form, but keyspace.stream.format is connect-json; a"
            + " topic keeps one form, the one its consumers read: set"
            + " keyspace.stream.format=envelope again, or give the stream a new topic"
            + " (keyspace.stream.topic.prefix), which its consumers then read from the start",
        e.getMessage());
    assertTrue(!e.retriable(), "an operator decides");
  }

  @Test
  void aValueTellsItsFormOnlyIfItIsOneOfReshards() {
    assertEquals(
        Optional.of(KeyspaceStreamConfig.Format.CONNECT_JSON),
        TopicForm.form(bytes("{\"schema\": {}, \"payload\": {\"op\": \"c\"}}")));
    assertEquals(
        Optional.of(KeyspaceStreamConfig.Format.ENVELOPE),
        TopicForm.form(bytes("{\"op\": \"u\", \"before\": {}, \"after\": {}}")));
    assertEquals(Optional.empty(), TopicForm.form(null));
    assertEquals(Optional.empty(), TopicForm.form(bytes("not json")));
    assertEquals(Optional.empty(), TopicForm.form(bytes("{\"hello\": 1}")));
    assertEquals(Optional.empty(), TopicForm.form(bytes("[1, 2]")));
  }

  private static KeyspaceStreamConfig config(
      TestCluster cluster, String prefix, KeyspaceStreamConfig.Format format) {
    return new KeyspaceStreamConfig(
        cluster.bootstrap(), prefix, "ks", null, 3, (short) -1, Duration.ofMillis(200), format);
  }

  private static void send(TestCluster cluster, String topic, int partition, String value)
      throws Exception {
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName()))) {
      p.send(new ProducerRecord<>(topic, partition, bytes("{\"id\": 1}"), bytes(value))).get();
    }
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }
}
