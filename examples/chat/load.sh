#!/usr/bin/env bash
# Creates the chat keyspace's tables on every shard of a local cluster and loads rows, each on the
# shard that owns it: the shard of its sharding key's keyspace id (`reshard keyspace-id`). Rows must
# sit on their owning shard before `reshard keyspace init`, which refuses a shard holding rows
# outside its range.
#
#   examples/chat/load.sh /tmp/c1 [CHANNELS]        (default 200 channels, 20 messages each)
set -euo pipefail
dir=${1:?usage: load.sh CLUSTER_DIR [CHANNELS]}
channels=${2:-200}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
reshard="$here/../../reshard"
shards=-40,40-80,80-c0,c0-

# the shard servers' ports by shard name, from the cluster's descriptor (db1 is -40, ..., db4 c0-)
mapfile -t ports < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/cluster.json"))
for s in d["mariadb"]:
    if s["role"] == "shard":
        print(s["port"])
' "$dir")
declare -A port
i=0
for s in ${shards//,/ }; do port[$s]=${ports[$i]}; i=$((i + 1)); done

sql() { mariadb --no-defaults -h127.0.0.1 -P"$1" -uroot; }
for s in ${shards//,/ }; do sql "${port[$s]}" < "$here/schema.sql"; done
# refuse before writing anything if a shard holds rows already: ids would collide half way
for s in ${shards//,/ }; do
  n=$(echo 'SELECT (SELECT COUNT(*) FROM chat.messages) + (SELECT COUNT(*) FROM chat.accounts)' |
    sql "${port[$s]}" | tail -1)
  if [ "$n" != 0 ]; then
    echo "load.sh: shard $s (port ${port[$s]}) holds $n chat rows already; it loads an empty" \
      "keyspace: drop the database chat on every shard first, or use a new cluster" >&2
    exit 3
  fi
done

# one file of rows per shard, then one INSERT per shard (bash strings grow too slowly for this)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$reshard" keyspace-id --vindex hash --shards=$shards $(seq 1 "$channels") |
  while read -r ch _ shard; do
    for m in $(seq 1 20); do
      id=$((ch * 1000 + m))
      echo "($id, $ch, $((id % 97)), NOW(6), 'message $m of channel $ch')" >> "$tmp/messages.$shard"
    done
  done
"$reshard" keyspace-id --vindex hash --shards=$shards $(seq 1 100) |
  while read -r id _ shard; do echo "($id, 1000)" >> "$tmp/accounts.$shard"; done
for s in ${shards//,/ }; do
  for table in messages accounts; do
    f="$tmp/$table.$s"
    [ -s "$f" ] || continue
    { echo "INSERT INTO chat.$table VALUES"; paste -sd, "$f"; echo ";"; } | sql "${port[$s]}"
  done
  echo "shard $s (port ${port[$s]}): $(echo 'SELECT COUNT(*) FROM chat.messages' | sql "${port[$s]}" | tail -1) messages"
done
