// The accurate embedder (the full all-MiniLM-L6-v2 in engram's wasm core) in a Web Worker,
// so its transformer passes (tens of ms per text) never block the page. The model files
// (~90 MB, not packaged) are fetched once and kept in the Cache API.
import { accurateEmbedder } from "engram";

const CACHE = "engram-www-models-v1";
let embedder;

async function cachedBytes(url) {
  const cache = typeof caches === "undefined" ? undefined : await caches.open(CACHE);
  const hit = await cache?.match(url);
  if (hit) return new Uint8Array(await hit.arrayBuffer());
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot fetch ${url}: ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  await cache?.put(url, new Response(bytes.slice())).catch(() => undefined);
  return bytes;
}

self.onmessage = async ({ data }) => {
  const { id, type } = data;
  try {
    if (type === "load") {
      const [weights, vocab] = await Promise.all([cachedBytes(data.weights), cachedBytes(data.vocab)]);
      embedder = accurateEmbedder({ weights, vocab });
      await embedder.ready();
      self.postMessage({ id, ok: true, embedderId: embedder.id, dimension: embedder.dimension });
    } else if (type === "embed") {
      const vectors = await embedder.embed(data.texts);
      self.postMessage({ id, ok: true, vectors: vectors.map((v) => v.slice()) });
    }
  } catch (e) {
    self.postMessage({ id, ok: false, message: e?.message ?? String(e), code: e?.code });
  }
};
