// An engram Embedder whose work happens in a Web Worker (src/embed-worker.js).
export class WorkerEmbedder {
  constructor(worker, id, dimension) {
    this.worker = worker;
    this.id = id;
    this.dimension = dimension;
    this.calls = 0;
  }

  /** Start the worker and load the model there; resolves to the embedder once it is ready. */
  static async start({ weights, vocab }) {
    const worker = new Worker(new URL("./embed-worker.js", import.meta.url), { type: "module" });
    const info = await request(worker, { type: "load", weights: new URL(weights, location.href).href, vocab: new URL(vocab, location.href).href });
    return new WorkerEmbedder(worker, info.embedderId, info.dimension);
  }

  async embed(texts) {
    this.calls++;
    return (await request(this.worker, { type: "embed", texts })).vectors;
  }
}

let next = 0;
function request(worker, msg) {
  const id = ++next;
  return new Promise((resolve, reject) => {
    const onMessage = ({ data }) => {
      if (data.id !== id) return;
      worker.removeEventListener("message", onMessage);
      if (data.ok) resolve(data);
      else reject(Object.assign(new Error(data.message), { code: data.code ?? "EMBED_MODEL" }));
    };
    worker.addEventListener("message", onMessage);
    worker.postMessage({ ...msg, id });
  });
}
