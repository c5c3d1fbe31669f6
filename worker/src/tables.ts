/**
 * The token table (o200k) and the default embedding table (7.9 MB) reach the worker through
 * Workers Static Assets (`env.ASSETS`), never the bundle: as Data modules they made a
 * 10.4 MB script, over the 3 MB free-plan limit. Each is fetched and parsed once per
 * isolate (the SDK caches what {@link useWorkerdTables} locates); a failed load is retried
 * by the next request.
 * @module
 */
import { DEFAULT_EMBED_TABLE, useWorkerdTables } from "engram";
import { log } from "./http.js";

/** Where `scripts/setup.mjs` puts the tables inside the assets directory. */
export const TABLE_PATH = "/_engram/";

let configured = false;

async function fetchTable(assets: Fetcher, name: string): Promise<Uint8Array> {
  const res = await assets.fetch(`https://assets.invalid${TABLE_PATH}${name}`);
  if (!res.ok) throw new Error(`table ${name} is not in the worker's assets (${res.status}); run \`npm run setup\` in worker/`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  log({ op: "table", name, bytes: bytes.length });
  return bytes;
}

/** Point engram at this isolate's assets (idempotent). */
export function configureTables(assets: Fetcher): void {
  if (configured) return;
  configured = true;
  useWorkerdTables({
    tokenTable: (enc) => fetchTable(assets, `${enc}.engtok`),
    embedTable: () => fetchTable(assets, DEFAULT_EMBED_TABLE),
  });
}
