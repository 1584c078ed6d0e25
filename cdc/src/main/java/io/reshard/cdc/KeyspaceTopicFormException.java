package io.reshard.cdc;

/**
 * A keyspace stream configured with one {@code keyspace.stream.format} for a topic that holds
 * records of the other: its consumers read one form, so an operator decides (the old form again, or
 * a new topic). Not retriable.
 */
public final class KeyspaceTopicFormException extends CdcException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the topic, both forms and what to do
   */
  public KeyspaceTopicFormException(String message) {
    super(message, false, null);
  }
}
