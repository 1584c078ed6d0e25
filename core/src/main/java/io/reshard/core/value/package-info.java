/**
 * The one value representation of every column kind. Entry class: {@link
 * io.reshard.core.value.ValueCodec}, with the binlog/JSON form (capture and apply), the typed JDBC
 * read form, and the exact-bytes select, bind and key SQL forms (copy and diff); {@link
 * io.reshard.core.value.MariaDbCharsets} decodes and encodes text exactly as MariaDB does.
 */
package io.reshard.core.value;
