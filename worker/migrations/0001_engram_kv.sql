-- The table D1Storage uses (it also creates it on first use).
CREATE TABLE IF NOT EXISTS engram_kv (key TEXT PRIMARY KEY, value BLOB NOT NULL);
