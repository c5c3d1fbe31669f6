// The isolate's memory through the DevTools protocol of `wrangler dev --inspector-port`:
// V8's JS heap (Runtime.getHeapUsage) and the size of every WebAssembly.Memory in the
// isolate (Runtime.queryObjects) — the wasm core's linear memory, which the JS heap
// figure does not include. Used by bench.mjs.
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./harness.mjs";

const WebSocket = createRequire(join(ROOT, "worker/package.json"))("ws");

/**
 * One DevTools session with the worker's isolate (keep it for the worker's lifetime: a second
 * session sees no execution context). `measure()` gives { jsUsedMb, jsTotalMb, wasmMb } after
 * a full GC.
 */
export async function inspect(inspectorPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    ws.once("open", ok);
    ws.once("error", fail);
  });
  let next = 1;
  const pending = new Map();
  const contexts = [];
  ws.on("message", (d) => {
    const m = JSON.parse(d);
    if (m.method === "Runtime.executionContextCreated") contexts.push(m.params.context.id);
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((ok, fail) => {
      const id = next++;
      const t = setTimeout(() => {
        pending.delete(id);
        fail(new Error(`${method}: no answer from the inspector`));
      }, 10_000);
      pending.set(id, (m) => {
        clearTimeout(t);
        if (m.error) fail(new Error(`${method}: ${m.error.message}`));
        else ok(m.result);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Runtime.enable");
  for (let i = 0; i < 100 && contexts.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  if (contexts.length === 0) throw new Error("the inspector reported no execution context");
  await send("HeapProfiler.enable").catch(() => undefined);
  const mb = (b) => +(b / 1048576).toFixed(1);
  return {
    async measure() {
      await send("HeapProfiler.collectGarbage").catch(() => undefined);
      const heap = await send("Runtime.getHeapUsage");
      const ctx = contexts[contexts.length - 1];
      const proto = await send("Runtime.evaluate", { expression: "WebAssembly.Memory.prototype", contextId: ctx });
      const found = await send("Runtime.queryObjects", { prototypeObjectId: proto.result.objectId });
      const sizes = await send("Runtime.callFunctionOn", {
        objectId: found.objects.objectId,
        functionDeclaration: "function () { return this.map((m) => m.buffer.byteLength); }",
        returnByValue: true,
      });
      return { jsUsedMb: mb(heap.usedSize), jsTotalMb: mb(heap.totalSize), wasmMb: sizes.result.value.map(mb) };
    },
    close: () => ws.close(),
  };
}
