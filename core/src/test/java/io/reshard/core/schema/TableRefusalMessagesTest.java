package io.reshard.core.schema;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The refusals of a table speak to the operator: what is wrong and what to do, no internals. */
class TableRefusalMessagesTest {

  @Test
  void aTableWithoutAPrimaryKeyIsToldHowToAddOneWithoutADesignReference() {
    String m = TableSchemaReader.noPrimaryKey("chat.logs");
    assertTrue(m.contains("table chat.logs has no primary key"), m);
    assertTrue(m.contains("ALTER TABLE chat.logs ADD PRIMARY KEY"), m);
    assertFalse(m.contains("DESIGN"), "the operator has no design document: " + m);
  }
}
