-- The chat keyspace of the README: the same tables on every shard. A message lives on the shard of
-- its channel (hash of channel_id), an account on the shard of its id (see vschema.json).
CREATE DATABASE IF NOT EXISTS chat;
CREATE TABLE IF NOT EXISTS chat.messages (
  id BIGINT NOT NULL PRIMARY KEY,
  channel_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  created_at DATETIME(6) NOT NULL,
  body VARCHAR(200) NOT NULL,
  KEY by_channel (channel_id, created_at)
) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS chat.accounts (
  id BIGINT NOT NULL PRIMARY KEY,
  credits BIGINT NOT NULL
) ENGINE=InnoDB;
